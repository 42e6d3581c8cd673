"""The streaming JSON reader behind read_coco and read_labelstudio: it decodes exactly what
json.loads decodes, whatever the chunk size, and every broken document is a ReaderError."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iaa_frames.errors import ReaderError
from iaa_frames.io.json_stream import JSONStream, load_json

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
values = st.recursive(
    scalars,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=4), c, max_size=4),
    max_leaves=12,
)
documents = st.dictionaries(
    st.sampled_from(["images", "annotations", "info", "categories", "x"]),
    st.lists(values, max_size=5) | values,
    max_size=5,
)


def _collect(path, chunk):
    stream = JSONStream(path, stream_keys=("images", "annotations"), chunk_size=chunk)
    out, streamed = {}, {}
    for kind, key, _i, v in stream:
        if kind == "item":
            streamed.setdefault(key, []).append(v)
        else:
            out[key] = v
    return {**out, **streamed}, set(streamed)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(doc=documents, chunk=st.integers(1, 64), indent=st.sampled_from([None, 1, 3]))
def test_stream_equals_json_loads(tmp_path, doc, chunk, indent):
    p = tmp_path / "doc.json"
    p.write_text(json.dumps(doc, indent=indent), encoding="utf-8")
    got, streamed = _collect(p, chunk)
    expected = json.loads(p.read_text(encoding="utf-8"))
    # streamed arrays come back as lists of their elements; empty ones are absent
    for key in ("images", "annotations"):
        if isinstance(expected.get(key), list) and not expected[key]:
            expected.pop(key)
            got.pop(key, None)
    assert got == expected
    assert streamed <= {k for k, v in expected.items() if isinstance(v, list)}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    doc=documents.filter(lambda d: len(json.dumps(d)) > 2),
    cut=st.floats(0, 1),
    chunk=st.integers(1, 64),
)
def test_any_truncation_is_a_reader_error(tmp_path, doc, cut, chunk):
    text = json.dumps(doc)
    n = min(int(len(text) * cut), len(text) - 1)
    p = tmp_path / "cut.json"
    p.write_text(text[:n], encoding="utf-8")
    if n == 0:
        return  # an empty file: check_file's business
    with pytest.raises(ReaderError, match=r"cut\.json"):
        _collect(p, chunk)


def test_top_level_array_and_load_json(tmp_path):
    p = tmp_path / "tasks.json"
    p.write_text('[{"id": 1}, {"id": 2}]')
    assert load_json(p) == [{"id": 1}, {"id": 2}]
    p.write_text('{"a": [1, 2], "b": {"c": null}}')
    assert load_json(p) == {"a": [1, 2], "b": {"c": None}}
    p.write_text('"just a string"')
    with pytest.raises(ReaderError, match="not a JSON object or array"):
        load_json(p)
    p.write_text("\ufeff[1]", encoding="utf-8")  # a byte-order mark is fine
    assert load_json(p) == [1]
