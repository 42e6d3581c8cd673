"""read_table(boxes=...): crowdsourcing exports with one row per (item, worker) and the boxes
as a JSON list in one cell read back into the tidy frame they were written from; every
malformed cell is named (file, row, column, reason) or dropped and counted; cells are
decoded as JSON only."""

import json
import re

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import (
    DroppedRowsWarning,
    ParameterError,
    ReaderError,
)
from iaa_frames.io.box_lists import BOX_KEYS, explode_boxes


@pytest.fixture(scope="module")
def frame():
    return iaf.simulate(
        n_items=10, annotators={"w1": "good", "w2": "sloppy", "w3": "misser"}, seed=5
    )


def to_export(df, style):
    """One row per (item, annotator): the boxes as JSON, in the given style."""
    rows = []
    for (item, ann), g in df.groupby(["item", "annotator"], sort=False):
        obj = g[g["x0"].notna()]
        if style == "ltwh":
            boxes = [
                {"left": r.x0, "top": r.y0, "width": r.x1 - r.x0, "height": r.y1 - r.y0,
                 "label": r.label}
                for r in obj.itertuples()
            ]  # fmt: skip
        else:
            boxes = [[r.x0, r.y0, r.x1, r.y1] for r in obj.itertuples()]
        rows.append({"Input.image": item, "WorkerId": ann, "Answer.boxes": json.dumps(boxes),
                     "width": g["width"].iloc[0], "height": g["height"].iloc[0]})  # fmt: skip
    return pd.DataFrame(rows)


def test_a_crowd_export_reads_back_the_frame(tmp_path, frame):
    path = tmp_path / "batch.csv"
    to_export(frame, "ltwh").to_csv(path, index=False)
    df = iaf.read_table(
        path,
        columns={"Input.image": "item", "WorkerId": "annotator", "Answer.boxes": "boxes"},
        boxes="boxes",
    )
    cols = ["item", "annotator", "label", "width", "height"]
    want = frame.sort_values(["item", "annotator"], kind="stable").reset_index(drop=True)
    got = df.sort_values(["item", "annotator"], kind="stable").reset_index(drop=True)
    assert got[cols].astype(object).values.tolist() == want[cols].astype(object).values.tolist()
    # left + width round-trips through float text: equal to the last bits, not exactly
    np.testing.assert_allclose(
        got[["x0", "y0", "x1", "y1"]].to_numpy(), want[["x0", "y0", "x1", "y1"]].to_numpy(),
        rtol=1e-12,
    )  # fmt: skip


def test_lists_of_corners_take_the_row_label(tmp_path, frame):
    one = frame[frame["label"] == "car"]
    export = to_export(one, "lists").assign(label="car")
    path = tmp_path / "t.csv"
    export.to_csv(path, index=False)
    df = iaf.read_table(path, columns={"Input.image": "item", "WorkerId": "annotator"},
                        boxes="Answer.boxes")  # fmt: skip
    assert set(df["label"].dropna()) == {"car"}
    assert iaf.is_object(df).sum() == len(one)
    # xywh lists read as corner + size
    export.assign(**{"Answer.boxes": ["[[1, 2, 3, 4]]"] * len(export)}).to_csv(path, index=False)
    df = iaf.read_table(path, columns={"Input.image": "item", "WorkerId": "annotator"},
                        boxes="Answer.boxes", box_format="xywh")  # fmt: skip
    assert df[["x0", "y0", "x1", "y1"]].iloc[0].tolist() == [1, 2, 4, 6]


@pytest.mark.parametrize(("keys", "kind"), BOX_KEYS)
def test_every_key_set_gives_the_same_box(keys, kind):
    vals = (2, 3, 7, 9) if kind == "xyxy" else (2, 3, 5, 6)
    cell = json.dumps([dict(zip(keys, vals, strict=True), label="a")])
    rows, _ = explode_boxes(pd.DataFrame({"item": ["i"], "annotator": ["w"], "b": [cell]}), "b")
    assert rows[["x0", "y0", "x1", "y1"]].iloc[0].tolist() == [2, 3, 7, 9]


def test_identifiers_stay_text_and_identical_workers_agree(tmp_path):
    cells = [json.dumps([{"x": 40 * k, "y": 10, "w": 20, "h": 30, "label": "p"}]) for k in range(6)]
    export = pd.DataFrame({"img": [f"{k:03d}" for k in range(6)] * 2,
                           "worker": ["007"] * 6 + ["7"] * 6, "ans": cells * 2,
                           "width": 300, "height": 100})  # fmt: skip
    path = tmp_path / "t.csv"
    export.to_csv(path, index=False)
    df = iaf.read_table(path, columns={"img": "item", "worker": "annotator"}, boxes="ans")
    assert sorted(set(df["annotator"])) == ["007", "7"] and df["item"].iloc[0] == "000"
    res = iaf.agreement(df, n_chance=50, n_boot=0)
    assert float(res["agreement"].sel(component="detection", label="(all)", annotator="(all)")) == 1


MALFORMED = [
    ("[{'x0': 1}]", "not_json", "not JSON"),
    ("__import__('os').system('true')", "not_json", "not JSON"),
    ("[(1, 2, 3, 4)]", "not_json", "not JSON"),
    ("[" * 100_000 + "]" * 100_000, "not_json", "not JSON"),
    ('{"x0": 1, "y0": 1, "x1": 2, "y1": 2}', "not_a_list", "holds a dict"),
    ("[[1, 2, 3]]", "bad_box", "box 0 is neither"),
    ('[[1, 1, 2, 2], {"a": 1}]', "bad_box", "box 1 has none of the key sets"),
    ('[["1", 1, 2, 2]]', "bad_box", "x0 is '1', not a number"),
    ("[[true, 1, 2, 2]]", "bad_box", "x0 is True"),
    ('[{"x": 1, "y": 1, "width": 2, "height": 2, "rotation": 30}]', "bad_box", "rotated"),
    ('[{"x": 1, "y": 1, "w": 2, "h": 2, "label": [1]}]', "bad_box", "label is [1]"),
    ("[[1e999999, 1, 2, 2]]", "bad_box", "x0 is inf, not a finite number"),  # json: inf
    ("[[" + "9" * 400 + ", 1, 2, 2]]", "bad_box", "beyond float64"),
    ("", "empty_cell", "the cell is empty"),
]


@pytest.mark.parametrize(("cell", "reason", "message"), MALFORMED)
def test_malformed_cells_name_file_row_and_column(tmp_path, cell, reason, message):
    good = '[{"x": 1, "y": 1, "w": 2, "h": 2, "label": "a"}]'
    export = pd.DataFrame({"item": ["i1", "i2", "i3"], "annotator": ["w", "w", "w"],
                           "boxes": [good, cell, good]})  # fmt: skip
    path = tmp_path / "bad.csv"
    export.to_csv(path, index=False)
    if reason is None:
        with pytest.raises(ReaderError, match=r"bad.csv: row 2: a box coordinate is NaN"):
            iaf.read_table(path, boxes="boxes")
        return
    with pytest.raises(
        ReaderError, match=rf"bad.csv: row 2, column 'boxes': .*{re.escape(message)}"
    ):
        iaf.read_table(path, boxes="boxes")
    with pytest.warns(DroppedRowsWarning, match=rf"dropped 1 row\(s\).*{reason}: 1") as w:
        df = iaf.read_table(path, boxes="boxes", on_invalid="drop")
    assert df["item"].tolist() == ["i1", "i3"]
    dropped = w[0].message.dropped
    assert dropped[["row", "item", "reason"]].values.tolist() == [[2, "i2", reason]]
    assert df.attrs["iaa_reader_dropped"] == {reason: 1}


def test_invalid_boxes_are_named_by_their_data_row(tmp_path):
    path = tmp_path / "t.csv"
    pd.DataFrame({"item": ["a", "b"], "annotator": ["w", "w"],
                  "boxes": ["[[0, 0, 2, 2]]", "[[0, 0, 2, 2], [5, 5, 1, 9]]"],
                  "label": "x"}).to_csv(path, index=False)  # fmt: skip
    with pytest.raises(ReaderError, match=r"t.csv: row 2: the box is inverted"):
        iaf.read_table(path, boxes="boxes")
    with pytest.warns(DroppedRowsWarning, match="inverted_box: 1"):
        assert len(iaf.read_table(path, boxes="boxes", on_invalid="drop")) == 2


def test_parquet_list_cells(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "t.parquet"
    pd.DataFrame({"item": ["a", "a"], "annotator": ["w1", "w2"],
                  "boxes": [[[0.0, 0, 2, 2], [3, 3, 4, 4]], []], "label": "x"}).to_parquet(path)  # fmt: skip
    df = iaf.read_table(path, boxes="boxes")
    assert df["x1"].tolist()[:2] == [2, 4] and df["label"].isna().tolist() == [False, False, True]


def test_wrong_parameters(tmp_path):
    path = tmp_path / "t.csv"
    pd.DataFrame({"item": ["a"], "annotator": ["w"], "boxes": ["[]"]}).to_csv(path, index=False)
    with pytest.raises(ReaderError, match="no column 'answer' of boxes"):
        iaf.read_table(path, boxes="answer")
    with pytest.raises(ParameterError, match="box_format"):
        iaf.read_table(path, boxes="boxes", box_format="cxcywh")
    with pytest.raises(ParameterError, match="on_invalid"):
        iaf.read_table(path, boxes="boxes", on_invalid="skip")
    assert iaf.read_table(path, boxes="boxes")["label"].isna().all()  # [] : coverage row
