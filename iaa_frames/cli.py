"""Command line: ``iaa-frames report ...`` and ``iaa-frames demo`` (also ``python -m iaa_frames``).

User errors (a missing file, an unknown format, an invalid export, a bad parameter) print
one line, ``iaa-frames: error: ...``, to stderr and exit with status 2 (usage) or 1
(input); there is no traceback.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import warnings
from pathlib import Path

__all__ = ["FORMATS", "guess_format", "main", "read_inputs"]

PROG = "iaa-frames"

#: ``--format`` choices.
FORMATS = ("coco", "cvat", "labelstudio", "voc", "yolo", "darwin", "csv", "parquet")

_DESCRIPTION = """\
Chance-corrected inter-annotator agreement for bounding boxes and polygons, split into
detection, classification and localization."""

_EXAMPLES = """\
examples:
  iaa-frames demo
      report on the bundled sample (4 annotators, 40 images) in ./iaa-frames-demo
  iaa-frames report ana.json ben.json --out report/
      one COCO file per annotator (the annotator is the file name; the format is told
      from the content: COCO, Label Studio or Darwin JSON)
  iaa-frames report exports/ --format voc --out report/
      a directory with one subdirectory of VOC XML files per annotator
  iaa-frames report yolo-exports/ --classes data.yaml --image-sizes sizes.csv --out r/
      one YOLO export (Ultralytics or Darknet layout) per annotator subdirectory
  iaa-frames report project.json job_3.xml --on-invalid drop --out r/
      the same images from Label Studio and CVAT; unusable shapes dropped and listed
      in r/dropped.csv
  iaa-frames report annotations.csv --out r/ --n-boot 500 --seed 1
      a tidy table: item, annotator, label, x0, y0, x1, y1 [, geometry (WKT), width, height]

Open DIR/report.html in a browser; it needs no network. DIR also holds agreement.nc and
the tables as CSV. See 'iaa-frames report --help' for every option."""

_REPORT_HELP = """\
Read annotation exports, compute agreement (detection, classification, localization,
overall; by class and annotator, with bootstrap CIs) and write DIR/report.html,
DIR/agreement.nc and CSV tables.

input layouts by --format (by default told from the file names and contents: .csv,
.parquet, .xml (CVAT or VOC), .json (COCO, Label Studio or Darwin), directories):
  coco         one COCO JSON per annotator (annotator = file name), or one file with
               rater_id keys
  cvat         CVAT for images or for video 1.1 XML, one per job/annotator
               (annotator = job assignee)
  labelstudio  Label Studio JSON or JSON-MIN export(s) (annotator = completed_by)
  voc          a directory of per-annotator subdirectories of VOC XML, or several
               directories (annotator = directory name)
  yolo         like voc, each annotator's directory an Ultralytics (data.yaml, labels/)
               or Darknet (obj.data, train.txt) export; see --classes and --image-sizes
  darwin       V7 Darwin JSON 2.0: a directory of per-annotator subdirectories, or files
Images are matched across files by their base names (photo.jpg), so that Label Studio
upload paths and CVAT names meet.
  csv          tidy table, one row per object: item, annotator, label, x0, y0, x1, y1,
               optional geometry (WKT polygon), width, height, object_id
  parquet      the same table as Parquet (needs pyarrow)"""


class _Parser(argparse.ArgumentParser):
    """Usage errors on one line, exit status 2."""

    def error(self, message):
        self.exit(2, f"{PROG}: error: {message} (see '{self.prog} --help')\n")


def _bounded(kind, low=None, high=None, what=""):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return value
    return parse


def _thresholds(text):
    """``--match-threshold``: one number in [0, 1], or several separated by commas (a sweep:
    the report gains a "Match threshold" section)."""
    number = _bounded(float, 0, 1, "a number in [0, 1]")
    parts = [t.strip() for t in text.split(",")]
    if len(parts) == 1:
        return number(parts[0])
    if not all(parts):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of "
                                         "numbers in [0, 1]")
    return sorted({number(t) for t in parts})


def _distances():
    from .distances import available_distances

    return available_distances()


def _add_engine_options(p, *, n_boot_default):
    from .settings import DEFAULTS, OVERALL

    g = p.add_argument_group("agreement options")
    g.add_argument("--distance", default=DEFAULTS.distance, choices=_distances(),
                   help="distance between matched objects (default: %(default)s)")
    g.add_argument("--match-threshold", type=_thresholds, default=DEFAULTS.match_threshold,
                   metavar="TAU",
                   help="IoU at or above which two objects match (default: %(default)s); "
                        "several, comma-separated (0.3,0.5,0.7), add a section with every "
                        "component against the threshold, the rest of the report at 0.5 "
                        "or the nearest")
    g.add_argument("--n-boot", type=_bounded(int, 0, None, "a non-negative integer"),
                   default=n_boot_default, metavar="N",
                   help="bootstrap replicates for the confidence intervals, 0 for none "
                        "(default: %(default)s)")
    g.add_argument("--n-chance", type=_bounded(int, 1, None, "a positive integer"),
                   default=DEFAULTS.n_chance, metavar="N",
                   help="target number of chance units per stratum (default: %(default)s)")
    g.add_argument("--seed", type=_bounded(int, 0, None, "a non-negative integer"),
                   default=DEFAULTS.seed, help="seed of the chance sample and bootstrap "
                                               "(default: %(default)s)")
    g.add_argument("--overall", choices=OVERALL, default=DEFAULTS.overall,
                   help="how the overall set distance averages best matches: over both "
                        "directions' objects pooled, or per direction (default: %(default)s)")
    o = p.add_argument_group("output options")
    o.add_argument("--title", help="report title")
    o.add_argument("--top", type=_bounded(int, 1, None, "a positive integer"), default=20,
                   metavar="N", help="classes shown in figures and HTML tables "
                                     "(default: %(default)s; the CSV files hold all)")
    bar = o.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None,
                     help="always show progress bars (default: only for long work)")
    bar.add_argument("-q", "--quiet", dest="progress", action="store_false",
                     help="no progress bars or status messages")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``iaa-frames``."""
    from . import __version__

    parser = _Parser(prog=PROG, description=_DESCRIPTION, epilog=_EXAMPLES,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    rep = sub.add_parser("report", help="write an agreement report for annotation exports",
                         description=_REPORT_HELP, epilog=_EXAMPLES,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    rep.add_argument("inputs", nargs="+", metavar="INPUT", help="files or directories")
    rep.add_argument("-f", "--format", choices=FORMATS,
                     help="format of the inputs (default: told from the file names and "
                          "contents)")
    rep.add_argument("--on-invalid", choices=("raise", "drop"), default="raise",
                     help="unusable entries (a shape without a label, a zero-area box, ...): "
                          "stop with an error naming them (raise, the default), or drop them "
                          "and list them in OUT/dropped.csv (drop)")
    rep.add_argument("-o", "--out", required=True, metavar="DIR",
                     help="output directory (created if missing)")
    y = rep.add_argument_group("yolo options")
    y.add_argument("--classes", metavar="PATH",
                   help="classes.txt / obj.names / data.yaml naming the class indices")
    y.add_argument("--image-sizes", metavar="CSV",
                   help="CSV with columns item (or stem), width, height")
    _add_engine_options(rep, n_boot_default=200)

    demo = sub.add_parser("demo", help="run the report on the bundled sample",
                          description="Run the whole report on the bundled sample corpus "
                                      "(40 images, 4 annotators: careful, sloppy, a "
                                      "misser and a mislabeler).",
                          epilog="example:\n  iaa-frames demo --out /tmp/demo",
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    demo.add_argument("-o", "--out", default="iaa-frames-demo", metavar="DIR",
                      help="output directory (default: ./%(default)s)")
    _add_engine_options(demo, n_boot_default=200)
    return parser


# ----------------------------------------------------------------------------- reading


_IMAGE_LIST = ("obj.data", "data.yaml", "dataset.yaml", "obj.names")


def _head(path: Path, n: int = 65536) -> str:
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as fh:
            return fh.read(n)
    except OSError:
        return ""


def _json_format(path: Path):
    head = _head(path).lstrip()
    if head.startswith("["):
        if re.search(r'"image_id"\s*:', head) and re.search(r'"category_id"\s*:', head):
            return "coco"  # a COCO results file: a list of annotations
        return "labelstudio"
    if head.startswith("{"):
        if re.search(r'"item"\s*:\s*\{', head) and re.search(r'"slots"|"annotations"', head):
            return "darwin"
        if re.search(r'"(images|annotations|categories)"\s*:', head):
            return "coco"
        if re.search(r'"image"\s*:\s*\{', head):
            return "darwin"  # Darwin 1.0: read_darwin says to export 2.0
    return None


def _xml_format(path: Path):
    head = _head(path, 8192)
    m = re.search(r"<(annotations|annotation)[\s>]", head)
    if m is None:
        return None
    return "cvat" if m.group(1) == "annotations" else "voc"


def _file_format(path: Path):
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix == ".xml":
        return _xml_format(path)
    if suffix == ".json":
        return _json_format(path)
    return None


def _dir_format(path: Path, depth: int = 0):
    if any((path / n).is_file() for n in _IMAGE_LIST) or (path / "labels").is_dir():
        return "yolo"
    found = set()
    for p in sorted(path.iterdir())[:200]:
        if p.is_file():
            if p.suffix.lower() == ".txt" and p.name not in ("train.txt", "valid.txt", "test.txt"):
                found.add("yolo")
            elif p.suffix.lower() in (".xml", ".json"):
                fmt = _file_format(p)
                if fmt is not None:
                    found.add(fmt)
        elif p.is_dir() and depth == 0 and not p.name.startswith("."):
            fmt = _dir_format(p, depth=1)
            if fmt is not None:
                found.add(fmt)
    return found.pop() if len(found) == 1 else None


def guess_format(inputs) -> str:
    """The ``--format`` of the inputs, told from their names and contents.

    ``.csv`` and ``.parquet`` by name; ``.xml``: CVAT (root ``<annotations>``) or VOC
    (``<annotation>``); ``.json``: COCO (``images``/``annotations``/``categories``, or a
    list of annotations), Darwin (``item``) or Label Studio (a list of tasks or JSON-MIN
    records); directories by the files they (or their subdirectories) hold, YOLO when they
    hold ``.txt`` labels, ``labels/``, ``data.yaml`` or ``obj.data``.

    Raises
    ------
    ParameterError
        When an input's format cannot be told, or the inputs have different formats.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ann.json").write_text('{"images": [], "annotations": [], "categories": []}')
    >>> _ = (d / "job.xml").write_text("<annotations><version>1.1</version></annotations>")
    >>> guess_format([d / "ann.json"]), guess_format([d / "job.xml"])
    ('coco', 'cvat')
    """
    from .errors import ParameterError

    formats = {}
    for p in map(Path, inputs):
        fmt = _dir_format(p) if p.is_dir() else _file_format(p)
        if fmt is None:
            raise ParameterError(f"cannot tell the format of {p}; pass --format "
                                 f"({', '.join(FORMATS)})")
        formats[p] = fmt
    kinds = set(formats.values())
    if len(kinds) > 1:
        listed = ", ".join(f"{p.name}: {f}" for p, f in formats.items())
        raise ParameterError(f"the inputs have different formats ({listed}); read them in "
                             "Python (iaa_frames.read_*) and pd.concat the frames, or pass --format")
    return kinds.pop()


def _check_paths(paths):
    for p in paths:
        if not p.exists():
            raise FileNotFoundError(f"no such file or directory: {p}")


def _concat(frames):
    """Concatenate reader outputs, keeping object ids unique across inputs."""
    import pandas as pd

    if len(frames) == 1:
        return frames[0]
    parts = []
    for k, f in enumerate(frames):
        f = f.copy()
        if "object_id" in f.columns:
            f["object_id"] = [f"{k}/{v}" for v in f["object_id"]]
        parts.append(f)
    return pd.concat(parts, ignore_index=True)


def read_inputs(inputs, fmt: str | None = None, *, classes=None, image_sizes=None,
                on_invalid: str = "raise"):
    """Read the inputs of ``iaa-frames report`` into one tidy frame.

    Parameters
    ----------
    inputs : list of path
    fmt : str, optional
        One of :data:`FORMATS`; by default told by :func:`guess_format`.
    classes, image_sizes : path, optional
        YOLO class names and image sizes.
    on_invalid : {"raise", "drop"}, default "raise"
        Passed to the readers (and to ``validate`` for tables).

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    from . import io as readers
    from .errors import ParameterError

    paths = [Path(p) for p in inputs]
    _check_paths(paths)
    if fmt is None:
        fmt = guess_format(paths)
    if fmt not in FORMATS:
        raise ParameterError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    if (classes or image_sizes) and fmt != "yolo":
        raise ParameterError("--classes and --image-sizes apply to --format yolo only")
    one = len(paths) == 1
    kw = {"on_invalid": on_invalid}
    if fmt in ("coco", "cvat"):
        read = readers.read_coco if fmt == "coco" else readers.read_cvat
        return read(paths[0] if one else paths, **kw)
    if fmt in ("csv", "parquet"):
        return _concat([readers.read_table(p, fmt=fmt, on_invalid=on_invalid) for p in paths])
    if fmt == "labelstudio":
        return _concat([readers.read_labelstudio(p, **kw) for p in paths])
    if fmt == "yolo":
        if classes:
            _check_paths([Path(classes)])
            kw["classes"] = Path(classes)
        if image_sizes:
            _check_paths([Path(image_sizes)])
            kw["image_sizes"] = pd.read_csv(image_sizes)
        read = lambda p: readers.read_yolo(p, **kw)
    else:
        reader = readers.read_voc if fmt == "voc" else readers.read_darwin
        read = lambda p: reader(p, **kw)
    if one:
        return read(paths[0])
    if all(p.is_dir() for p in paths):
        names = [p.resolve().name for p in paths]
        if len(set(names)) < len(names):
            raise ParameterError("several input directories have the same name; each "
                                 "directory is one annotator, named after it")
        return read(dict(zip(names, paths)))
    return _concat([read(p) for p in paths])


# -------------------------------------------------------------------------------- main


def _status(args, text):
    if args.progress is not False:
        print(text, file=sys.stderr, flush=True)


def _run_report(args, df, title):
    import matplotlib

    matplotlib.use("Agg")  # figures only go into the report: never open windows
    from .report import report

    start = time.perf_counter()
    _status(args, f"computing agreement of {len(df):,} rows ...")
    out = report(df, args.out, distance=args.distance, match_threshold=args.match_threshold,
                 n_chance=args.n_chance, n_boot=args.n_boot, seed=args.seed, overall=args.overall,
                 progress=args.progress, title=title, top=args.top)
    _status(args, f"wrote {out.parent} in {time.perf_counter() - start:.1f} s")
    print(out.resolve())
    return 0


def _command(args):
    if args.command == "demo":
        from .io import load_sample

        df = load_sample("coco")
        title = args.title or "iaa_frames demo: the bundled sample corpus"
        return _run_report(args, df, title)
    fmt = args.format or guess_format(args.inputs)
    _status(args, f"reading {len(args.inputs)} input(s) as {fmt} ...")
    df = read_inputs(args.inputs, fmt, classes=args.classes, image_sizes=args.image_sizes,
                     on_invalid=args.on_invalid)
    return _run_report(args, df, args.title)


def _write_dropped(args, frames) -> None:
    if not frames or not getattr(args, "out", None):
        return
    import pandas as pd

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table = pd.concat([f.astype(object) for f in frames], ignore_index=True)
    if "geometry" in table.columns:
        table["geometry"] = [getattr(g, "wkt", g) for g in table["geometry"]]
    table.to_csv(out / "dropped.csv", index=False)


def _one_line(exc) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv=None) -> int:
    """Run ``iaa-frames``; returns the exit status.

    Examples
    --------
    >>> main(["report", "missing.json", "--format", "coco", "--out", "x", "-q"])
    1
    """
    from .errors import IAAError

    parser = build_parser()
    args = parser.parse_args(argv)

    dropped = []  # DroppedRowsWarning.dropped frames, written to OUT/dropped.csv

    def show(message, category, filename, lineno, file=None, line=None):
        from .errors import DroppedRowsWarning

        if isinstance(message, DroppedRowsWarning) and getattr(args, "out", None):
            # the Python advice (.dropped, return_dropped=True) means nothing here: the
            # records go to a file
            text = str(message).split(";")[0]
            n = len(message.dropped) if message.dropped is not None else sum(message.counts.values())
            if message.dropped is not None:
                dropped.append(message.dropped)
            target = Path(args.out) / "dropped.csv"
            text = f"{text}; the {n} record(s) are listed in {target}"
        else:
            text = str(message)
        print(f"{PROG}: warning: {' '.join(text.split())}", file=sys.stderr)

    try:
        with warnings.catch_warnings():
            warnings.showwarning = show
            try:
                return _command(args)
            finally:
                _write_dropped(args, dropped)
    except IAAError as exc:
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    except OSError as exc:
        text = exc.strerror and exc.filename and f"{exc.strerror}: {exc.filename}"
        print(f"{PROG}: error: {text or _one_line(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
