"""Exact volume shared by pairs of convex polyhedra, by clipping their faces, in numpy.

Every face of the intersection of two convex polyhedra ``A`` and ``B`` is a face of
``A`` inside ``B`` or a face of ``B`` inside ``A``. So each face of ``A`` (a convex
polygon) is clipped by the half-spaces of ``B``'s planes, each face of ``B`` by ``A``'s,
with the Sutherland–Hodgman rule (a vertex inside is kept, an edge that crosses the plane
adds the crossing point), and the volume is, by the divergence theorem,
``sum_f h_f S_f / 3`` over the clipped faces (area ``S_f``, signed distance ``h_f`` of the
face's plane from a reference point). Every step is a numpy operation over all faces of
all pairs at once (no Python loop over pairs; the loop runs over the planes of a
polyhedron, 6 for a cuboid).

A face of ``B`` that lies on a plane of ``A`` with the same outward normal (the same face
drawn twice, as in identical cuboids) is the face of ``A`` inside ``B`` too: it is counted
once, as ``A``'s: a plane of ``B`` within :data:`TOLERANCE` of one of ``A`` over the
pair's extent counts as that plane. Two polyhedra with faces back to back within it share
a slab thinner than that: volume 0.

Examples
--------
Two unit cubes, one shifted by half its side along x, share half a cube:

>>> import numpy as np
>>> from iaa_frames.geometry.kinds.cuboid import cuboid_faces
>>> a = np.array([[0.5, 0.5, 0.5, 1, 1, 1, 0, 0, 0]])
>>> b = np.array([[1.0, 0.5, 0.5, 1, 1, 1, 0, 0, 0]])
>>> round(float(shared_volume(*cuboid_faces(a), *cuboid_faces(b))[0]), 12)
0.5
"""

from __future__ import annotations

import numpy as np

__all__ = ["TOLERANCE", "shared_volume"]

#: Relative tolerance (of the pair's extent): a plane of ``B`` within it of a plane of
#: ``A`` over the whole extent counts as that plane (the volume changes by about that
#: fraction at most); closer planes would be cut at a crossing that rounding moves by
#: ``1e-16 / angle``.
TOLERANCE = 1e-7
#: Pairs measured per numpy block.
BLOCK = 4096


def shared_volume(faces_a, normals_a, offsets_a, faces_b, normals_b, offsets_b) -> np.ndarray:
    """Volume shared by each pair of convex polyhedra ``(A[p], B[p])``.

    Parameters
    ----------
    faces_a : ndarray, shape (m, F, V, 3)
        The faces of each ``A``, each a convex polygon of ``V`` vertices in order (either
        way round).
    normals_a : ndarray, shape (m, F, 3)
        Unit outward normal of each face.
    offsets_a : ndarray, shape (m, F)
        Plane offsets: face ``f`` lies on ``normals_a[p, f] . x = offsets_a[p, f]`` and
        ``A`` is where ``normals_a . x <= offsets_a`` for every face.
    faces_b, normals_b, offsets_b
        The same for ``B``.

    Returns
    -------
    ndarray of float64, shape (m,)
    """
    m = len(offsets_a)
    out = np.zeros(m)
    for lo in range(0, m, BLOCK):
        s = slice(lo, lo + BLOCK)
        out[s] = _volume(
            faces_a[s], normals_a[s], offsets_a[s], faces_b[s], normals_b[s], offsets_b[s]
        )
    return out


def _volume(fa, na, da, fb, nb, db) -> np.ndarray:
    m = len(da)
    # coordinates relative to the centre of A, so that rounding is relative to the sizes
    ref = fa.reshape(m, -1, 3).mean(axis=1)
    fa, fb = fa - ref[:, None, None], fb - ref[:, None, None]
    da = da - np.einsum("mfa,ma->mf", na, ref)
    db = db - np.einsum("mfa,ma->mf", nb, ref)
    scale = np.maximum(np.abs(fa).max(axis=(1, 2, 3)), np.abs(fb).max(axis=(1, 2, 3)))
    delta = TOLERANCE * scale
    # largest gap between a plane of A and one of B over the pair's extent
    dot = np.einsum("mfa,mga->mfg", na, nb)
    turn = np.linalg.norm(na[:, :, None] - nb[:, None, :], axis=-1) * scale[:, None, None]
    same = (dot > 0) & (np.abs(da[:, :, None] - db[:, None, :]) + turn <= delta[:, None, None])
    flip = np.linalg.norm(na[:, :, None] + nb[:, None, :], axis=-1) * scale[:, None, None]
    # back to back within delta: the two lie in a slab thinner than delta (volume ~ 0)
    flat = ((da[:, :, None] + db[:, None, :] + flip <= delta[:, None, None]) & (dot < 0)).any(
        axis=(1, 2)
    )
    area_a = _areas(*_clip(fa, nb, db, skip=same))
    area_b = np.where(same.any(axis=1), 0.0, _areas(*_clip(fb, na, da)))
    total = ((da * area_a).sum(axis=1) + (db * area_b).sum(axis=1)) / 3.0
    return np.where(flat, 0.0, np.maximum(total, 0.0))


def _clip(faces, planes_n, planes_d, skip=None):
    """Clip every face (m, F, V, 3) by every plane of the other polyhedron (``skip``:
    (m, F, G) pairs of a face and a plane left out)."""
    m, F, V, _ = faces.shape
    width = V + planes_d.shape[1]  # a convex polygon gains at most a vertex per plane
    P = m * F
    poly = np.zeros((P, width, 3))
    poly[:, :V] = faces.reshape(P, V, 3)
    count = np.full(P, V)
    slot = np.arange(width)
    base = np.arange(P)[:, None] * width  # first flat slot of each polygon
    spare = np.arange(P)[:, None] * (width + 1) + width  # where unused points go
    owner = np.repeat(np.arange(m), F)
    for k in range(planes_d.shape[1]):
        n, d = planes_n[owner, k], planes_d[owner, k]
        valid = slot[None, :] < count[:, None]
        s = np.einsum("pwa,pa->pw", poly, n) - d[:, None]  # <= 0: inside
        if skip is not None:
            s = np.where(skip[:, :, k].reshape(P, 1), -1.0, s)
        nxt = base + np.where(slot + 1 < count[:, None], slot + 1, 0)
        pn = poly.reshape(-1, 3)[nxt]
        sn = s.reshape(-1)[nxt]
        inside = s <= 0
        cross = valid & (inside != (sn <= 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.clip(np.where(cross, s / (s - sn), 0.0), 0.0, 1.0)
        point = poly + t[..., None] * (pn - poly)
        # per vertex: itself if inside, then the crossing point of its edge if any; the
        # j-th point emitted goes to slot j
        cand = np.stack([poly, point], axis=2).reshape(P, 2 * width, 3)
        emit = np.stack([valid & inside, cross], axis=2).reshape(P, 2 * width)
        rank = np.cumsum(emit, axis=1) - 1
        dest = np.where(emit & (rank < width), spare - width + rank, spare)
        out = np.zeros((P * (width + 1), 3))
        out[dest.reshape(-1)] = cand.reshape(-1, 3)
        poly = out.reshape(P, width + 1, 3)[:, :width].copy()
        count = np.minimum(emit.sum(axis=1), width)
    return poly.reshape(m, F, width, 3), count.reshape(m, F)


def _areas(poly, count) -> np.ndarray:
    """Area of each convex polygon (m, F, W, 3) of ``count`` vertices (a fan from its
    first vertex)."""
    width = poly.shape[2]
    rel = poly - poly[:, :, :1]
    cross = np.cross(rel[:, :, :-1], rel[:, :, 1:])  # triangles (0, i, i + 1)
    used = np.arange(width - 1)[None, None, :] < (count[..., None] - 1)
    vec = np.where(used[..., None], cross, 0.0).sum(axis=2)
    return np.where(count >= 3, 0.5 * np.linalg.norm(vec, axis=-1), 0.0)
