"""The fit behind annotator_quality (iaa_frames.measures.partner_fit): the bounded fixed point,
replicates solved at once, the leverage-corrected dispersion against a loop."""

from __future__ import annotations

import numpy as np

from iaa_frames.measures.partner_fit import Dispersion, fixed_point


def _design(seed, n_ann=8, n_items=30):
    rng = np.random.default_rng(seed)
    a, b, item = [], [], []
    for i in range(n_items):
        who = sorted(rng.choice(n_ann, int(rng.integers(2, 5)), replace=False))
        for x in range(len(who)):
            for y in range(x + 1, len(who)):
                a.append(who[x]), b.append(who[y]), item.append(i)
    a, b, item = (np.array(v, dtype=np.int64) for v in (a, b, item))
    den = rng.integers(1, 6, len(a)).astype(float)
    num = rng.uniform(0, 1, len(a)) * den
    return a, b, item, num, den, n_ann, n_items


def test_runaway_design_stays_bounded_and_converges():
    # a0's only agreeing partner a1 agrees with nobody else (PQ 0 with a2, a3, who agree
    # with each other): unbounded, q_a1 -> 0 and q_a0 -> infinity with q_a0 q_a1 fixed
    a = np.array([0, 1, 1, 2, 2, 3])
    b = np.array([1, 2, 3, 3, 4, 4])
    pq = np.array([0.8, 0.0, 0.0, 0.7, 0.6, 0.65])
    den = np.ones(6)
    q, iterations = fixed_point(a, b, pq * den, den, 5)
    assert iterations < 200
    assert q.max() <= 1.0 and q[0] == 1.0  # at the bound, not running off
    # Karush-Kuhn-Tucker: inside the box q_a is its own least-squares minimiser
    # sum_b q_b PQ_ab / sum_b q_b^2; at the bound 1 that minimiser is at least 1
    minimiser = [
        sum(q[y if x == m else x] * p for x, y, p in zip(a, b, pq) if m in (x, y))
        / sum(q[y if x == m else x] ** 2 for x, y in zip(a, b) if m in (x, y))
        for m in range(5)
    ]
    for m in range(5):
        if q[m] < 1.0:
            assert abs(q[m] - minimiser[m]) < 1e-8, (m, q, minimiser)
        else:
            assert minimiser[m] >= 1.0 - 1e-8


def test_replicates_at_once_equal_one_at_a_time():
    a, b, item, num, den, n_ann, n_items = _design(0)
    rng = np.random.default_rng(1)
    k = rng.multinomial(n_items, np.full(n_items, 1 / n_items), size=6)
    start = fixed_point(a, b, num, den, n_ann)[0]
    together = fixed_point(a, b, num, den, n_ann, weights=k[:, item], start=start)[0]
    alone = np.stack(
        [fixed_point(a, b, num, den, n_ann, weights=k[r : r + 1, item])[0][0] for r in range(6)]
    )
    np.testing.assert_allclose(together, alone, atol=1e-7)
    assert (np.isnan(together) == np.isnan(alone)).all()


def test_dispersion_against_a_loop():
    a, b, item, num, den, n_ann, n_items = _design(2)
    q = fixed_point(a, b, num, den, n_ann)[0]
    phi, info = Dispersion(a, b, item, num, den, n_ann, n_items).dispersion(q[None, :])
    # by hand: per (annotator, item) residual R and information I, leverage I / I_a
    groups = {}
    for x, y, i, nu, de in zip(a, b, item, num, den):
        for me, other in ((x, y), (y, x)):
            r, inf = groups.get((me, i), (0.0, 0.0))
            groups[(me, i)] = (
                r + q[other] * nu - q[me] * q[other] ** 2 * de,
                inf + q[other] ** 2 * de,
            )
    total = {}
    for (me, _), (_, inf) in groups.items():
        total[me] = total.get(me, 0.0) + inf
    top = sum(r * r for r, _ in groups.values())
    bottom = sum(inf * (1 - inf / total[me]) for (me, _), (_, inf) in groups.items())
    assert phi[0] == np.float64(top / bottom) or abs(phi[0] - top / bottom) < 1e-12
    np.testing.assert_allclose(info[0], [total[m] for m in range(n_ann)])
    # the residuals of one annotator sum to 0 over its items: the fixed point's equation
    for me in range(n_ann):
        assert abs(sum(r for (m, _), (r, _) in groups.items() if m == me)) < 1e-8


def test_partner_noise_against_a_loop():
    a, b, item, num, den, n_ann, n_items = _design(3)
    q = fixed_point(a, b, num, den, n_ann)[0]
    disp = Dispersion(a, b, item, num, den, n_ann, n_items)
    phi_m = disp.noise(q[None, :])[0]
    # by hand: residuals of single pairings about their (annotator, item) group
    rows = {}
    for x, y, i, nu, de in zip(a, b, item, num, den):
        for me, other in ((x, y), (y, x)):
            rows.setdefault((me, i), []).append((q[other] * nu, q[other] ** 2 * de))
    top = bottom = 0.0
    for pairs in rows.values():
        xs, ws = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
        share = xs.sum() / ws.sum()
        top += np.sum((xs - share * ws) ** 2)
        bottom += np.sum(ws * (1 - ws / ws.sum()))
    np.testing.assert_allclose(phi_m, top / bottom, rtol=1e-10)
    phi = disp.dispersion(q[None, :])[0][0]
    assert 0 < phi_m  # the partners add noise, and the annotators' own work varies too
    assert np.isfinite(phi)


def test_directed_score_does_not_charge_a_thorough_annotator():
    # three annotators on one item: "full" draws the 4 objects, "half" only 2 of them,
    # "full2" all 4 again. Against "half", full's 2 extra objects are corroborated by
    # full2: they are half's misses, not full's false positives
    import iaa_frames as iaf
    from iaa_frames.measures.partner_fit import pair_scores

    boxes = [(0, 0, 10, 10), (20, 0, 30, 10), (40, 0, 50, 10), (60, 0, 70, 10)]
    rows = []
    for who, keep in (("full", 4), ("half", 2), ("full2", 4)):
        for x0, y0, x1, y1 in boxes[:keep]:
            rows.append(dict(item="i", annotator=who, label="o", x0=x0, y0=y0, x1=x1, y1=y1,
                             width=100, height=100))  # fmt: skip
    t = iaf.pair_tables(iaf.validate(__import__("pandas").DataFrame(rows)), n_chance=20)
    a, b, _, num, den_a, den_b, _, _ = pair_scores(t)
    names = [str(x) for x in t.corpus.annotators]
    for x, y, nu, da, db in zip(a, b, num, den_a, den_b):
        pair = {names[x]: da, names[y]: db}
        if set(pair) == {"full", "half"}:
            assert nu == 2.0
            assert pair["full"] == 2.0  # PQ 1 for full: nothing of its own is wrong
            assert pair["half"] == 3.0  # (4 + 2) / 2: half's 2 misses count
    a, b, _, num, den_a, den_b, _, _ = pair_scores(t, directed=False)
    np.testing.assert_array_equal(den_a, den_b)
