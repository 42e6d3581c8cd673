"""The streaming JSON reader behind read_coco and read_labelstudio: it decodes exactly what
json.loads decodes, whatever the chunk size, and every broken document is a ReaderError;
a small file decoded whole gives the same events and the same errors as element by
element."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iaa_frames.errors import ReaderError
from iaa_frames.io import json_stream
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


def _events(path, chunk, whole):
    """Every event of the stream and its ``top``, the file decoded whole where ``whole``
    (else element by element), or the error's message."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(json_stream, "WHOLE_BYTES", 1 << 30 if whole else -1)
        stream = JSONStream(path, stream_keys=("images", "annotations"), chunk_size=chunk)
        try:
            return list(stream), stream.top
        except ReaderError as exc:
            return str(exc)


def _collect(path, chunk, whole=False):
    out, streamed = {}, {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(json_stream, "WHOLE_BYTES", 1 << 30 if whole else -1)
        events = list(JSONStream(path, stream_keys=("images", "annotations"), chunk_size=chunk))
    for kind, key, _i, v in events:
        if kind == "item":
            streamed.setdefault(key, []).append(v)
        else:
            out[key] = v
    return {**out, **streamed}, set(streamed)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    doc=documents,
    chunk=st.integers(1, 64),
    indent=st.sampled_from([None, 1, 3]),
    whole=st.booleans(),
)
def test_stream_equals_json_loads(tmp_path, doc, chunk, indent, whole):
    p = tmp_path / "doc.json"
    p.write_text(json.dumps(doc, indent=indent), encoding="utf-8")
    got, streamed = _collect(p, chunk, whole)
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


#: Documents written by hand: keys twice (with one value and with two, at the top level and
#: inside), a top-level array, a scalar, extra data, broken text, a byte-order mark.
_TEXTS = st.sampled_from(
    [
        '{"annotations": [{"a": 1}, {"a": 2}], "info": {"v": 1}}',
        '{"annotations": [1], "annotations": [2]}',
        '{"info": 1, "info": 1}',
        '{"annotations": [{"a": 1, "a": 1}], "x": 0}',
        '{"annotations": [{"a": 1, "a": 2}]}',
        '{"images": {"not": "a list"}, "annotations": []}',
        '[{"id": 1}, {"id": 2}]',
        '"text"',
        '{"a": 1} {"b": 2}',
        '{"annotations": [1, 2,, 3]}',
        '{"annotations": [1e999999999]}',
        "\ufeff" + '{"images": [1]}',
        "   ",
    ]
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_TEXTS | documents.map(json.dumps), chunk=st.integers(1, 16))
def test_a_file_decoded_whole_gives_the_events_and_errors_of_the_stream(tmp_path, text, chunk):
    p = tmp_path / "doc.json"
    p.write_text(text, encoding="utf-8")
    assert _events(p, chunk, whole=True) == _events(p, chunk, whole=False)
