"""Running ``iaa-frames``: read the inputs, write the report, report errors on one line.

User errors (a missing file, an unknown format, an invalid export, a bad parameter) print
one line, ``iaa-frames: error: ...``, to stderr and exit with status 1; there is no
traceback. Warnings print as ``iaa-frames: warning: ...``; the records a reader dropped go
to ``OUT/dropped.csv``.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

from iaa_frames.errors import DroppedRowsWarning, IAAError
from iaa_frames.io import load_sample
from iaa_frames.report import report
from iaa_frames.report.output import claim, output_path, record, write_csv

from .inputs import check_paths, group_by_column, input_formats, read_inputs
from .parser import PROG, build_parser

__all__ = ["main"]


def _status(args, text):
    if args.progress is not False:
        print(text, file=sys.stderr, flush=True)


def _run_report(args, df, title):
    import matplotlib

    matplotlib.use("Agg")  # figures only go into the report: never open windows

    start = time.perf_counter()
    _status(args, f"computing agreement of {len(df):,} rows ...")
    out = report(
        df,
        args.out,
        distance=args.distance,
        match_threshold=args.match_threshold,
        n_chance=args.n_chance,
        n_boot=args.n_boot,
        seed=args.seed,
        overall=args.overall,
        progress=args.progress,
        title=title,
        top=args.top,
    )
    _status(args, f"wrote {out.parent} in {time.perf_counter() - start:.1f} s")
    print(out.resolve())
    return 0


def _command(args):
    if args.command == "demo":
        df = load_sample("coco")
        title = args.title or "iaa_frames demo: the bundled sample corpus"
        return _run_report(args, df, title)
    check_paths([Path(p) for p in args.inputs])  # "no such file" before "which format"
    fmt = args.format
    kinds = fmt or " + ".join(dict.fromkeys(input_formats(args.inputs).values()))
    _status(args, f"reading {len(args.inputs)} input(s) as {kinds} ...")
    df = read_inputs(
        args.inputs,
        fmt,
        classes=args.classes,
        image_sizes=args.image_sizes,
        schema=args.schema,
        data_files=args.data_files,
        id_key=args.id_key,
        on_invalid=args.on_invalid,
    )
    if args.group:
        df = group_by_column(df, args.group)
    return _run_report(args, df, args.title)


def _write_dropped(args, frames) -> None:
    if not frames or not getattr(args, "out", None):
        return
    out = output_path(args.out)  # where report() writes: "~" expanded, as there
    claim(out, ["dropped.csv"])  # never a file the user wrote
    out.mkdir(parents=True, exist_ok=True)
    table = pd.concat([f.astype(object) for f in frames], ignore_index=True)
    if "geometry" in table.columns:
        table["geometry"] = [getattr(g, "wkt", g) for g in table["geometry"]]
    record(out, ["dropped.csv"])
    write_csv(table, out / "dropped.csv", index=False)


def _one_line(exc) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv=None) -> int:
    """Run ``iaa-frames``; returns the exit status.

    Examples
    --------
    >>> main(["report", "missing.json", "--format", "coco", "--out", "x", "-q"])
    1
    """
    parser = build_parser()
    args = parser.parse_args(argv)

    dropped = []  # DroppedRowsWarning.dropped frames, written to OUT/dropped.csv

    def show(message, category, filename, lineno, file=None, line=None):
        if isinstance(message, DroppedRowsWarning) and getattr(args, "out", None):
            # the Python advice (.dropped, return_dropped=True) means nothing here: the
            # records go to a file
            text = str(message).split(";")[0]
            n = (
                len(message.dropped)
                if message.dropped is not None
                else sum(message.counts.values())
            )
            if message.dropped is not None:
                dropped.append(message.dropped)
            try:  # where _write_dropped writes it ("~" expanded)
                target = output_path(args.out) / "dropped.csv"
            except IAAError:  # said when the report starts
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
    except BrokenPipeError:
        # the reader of our output left (``iaa-frames ... | head``): nothing to say to it,
        # and the interpreter's last flush must not fail again (Python's documentation,
        # "Note on SIGPIPE"); the work itself is done or stopped where it was
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
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
