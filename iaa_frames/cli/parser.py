"""The argument parser of ``iaa-frames``: commands, options and help texts.

Usage errors print one line, ``iaa-frames: error: ... (see 'iaa-frames report --help')``,
and exit with status 2.

Examples
--------
>>> args = build_parser().parse_args(["report", "a.json", "--out", "r", "--match-threshold",
...                                   "0.7,0.3"])
>>> args.command, args.match_threshold, args.n_boot
('report', [0.3, 0.7], 200)
"""

from __future__ import annotations

import argparse

from iaa_frames.geometry.distances import available_distances
from iaa_frames.settings.parameters import DEFAULTS, OVERALL
from iaa_frames.settings.validation import MAX_N_BOOT, MAX_N_CHANCE

from .inputs import FORMATS

__all__ = ["PROG", "build_parser"]

PROG = "iaa-frames"

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
  iaa-frames report my_potato_project/ --out r/
      a Potato project (its config, data files and annotation_output/ are read)
  iaa-frames report annotations.jsonl --data-files items.jsonl --schema objects --out r/
      Potato's jsonl export, sized by the project's data files; the image_annotation
      scheme named when the annotations hold several
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

input layouts by --format (by default told input by input from the file names and
contents: .csv, .parquet, .xml (CVAT or VOC), .json (COCO, Label Studio or Darwin),
directories, Potato projects and exports; inputs of different formats are read each by
its reader and put together):
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
  potato       a Potato project folder (config.yaml at its top or in configs/) or its
               config, the annotation_output folder (a user_state.json per annotator;
               annotator = user_id), one annotator's folder or user_state.json, or the
               annotations.jsonl / csv export (image sizes from the config's data files
               or --data-files, else from masks, else coordinates stay fractions of the
               image); see --schema, --data-files and --id-key
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
            if not text.isascii() or "_" in text:  # int() reads "1_0" and "١" too
                raise ValueError(text)
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
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a comma-separated list of numbers in [0, 1]"
        )
    return sorted({number(t) for t in parts})


def _add_engine_options(p, *, n_boot_default):
    g = p.add_argument_group("agreement options")
    g.add_argument(
        "--distance",
        default=DEFAULTS.distance,
        choices=available_distances(),
        help="distance between matched objects (default: %(default)s)",
    )
    g.add_argument(
        "--match-threshold",
        type=_thresholds,
        default=DEFAULTS.match_threshold,
        metavar="TAU",
        help="IoU at or above which two objects match (default: %(default)s); "
        "several, comma-separated (0.3,0.5,0.7), add a section with every "
        "component against the threshold, the rest of the report at 0.5 "
        "or the nearest",
    )
    g.add_argument(
        "--n-boot",
        type=_bounded(int, 0, MAX_N_BOOT, f"an integer in [0, {MAX_N_BOOT:,}]"),
        default=n_boot_default,
        metavar="N",
        help="bootstrap replicates for the confidence intervals, 0 for none (default: %(default)s)",
    )
    g.add_argument(
        "--n-chance",
        type=_bounded(int, 1, MAX_N_CHANCE, f"an integer in [1, {MAX_N_CHANCE:,}]"),
        default=DEFAULTS.n_chance,
        metavar="N",
        help="most chance units a stratum aims at (default: %(default)s)",
    )
    g.add_argument(
        "--seed",
        type=_bounded(int, 0, 2**63 - 1, "an integer in [0, 2**63 - 1]"),
        default=DEFAULTS.seed,
        help="seed of the chance sample and bootstrap (default: %(default)s)",
    )
    g.add_argument(
        "--overall",
        choices=OVERALL,
        default=DEFAULTS.overall,
        help="how the overall set distance averages best matches: over both "
        "directions' objects pooled, or per direction (default: %(default)s)",
    )
    o = p.add_argument_group("output options")
    o.add_argument("--title", help="report title")
    o.add_argument(
        "--top",
        type=_bounded(int, 1, None, "a positive integer"),
        default=20,
        metavar="N",
        help="classes shown in figures and HTML tables "
        "(default: %(default)s; the CSV files hold all)",
    )
    bar = o.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="always show progress bars (default: only for long work)",
    )
    bar.add_argument(
        "-q",
        "--quiet",
        dest="progress",
        action="store_false",
        help="no progress bars or status messages",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``iaa-frames``."""
    from iaa_frames.version import __version__

    parser = _Parser(
        prog=PROG,
        description=_DESCRIPTION,
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    rep = sub.add_parser(
        "report",
        help="write an agreement report for annotation exports",
        description=_REPORT_HELP,
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rep.add_argument("inputs", nargs="+", metavar="INPUT", help="files or directories")
    rep.add_argument(
        "-f",
        "--format",
        choices=FORMATS,
        help="format of the inputs (default: told from the file names and contents)",
    )
    rep.add_argument(
        "--on-invalid",
        choices=("raise", "drop"),
        default="raise",
        help="unusable entries (a shape without a label, a zero-area box, ...): "
        "stop with an error naming them (raise, the default), or drop them "
        "and list them in OUT/dropped.csv (drop)",
    )
    rep.add_argument(
        "-o", "--out", required=True, metavar="DIR", help="output directory (created if missing)"
    )
    rep.add_argument(
        "--group",
        metavar="COLUMN",
        help="column naming the group of each item (video, scene, patient, source image of "
        "an augmentation): chance pairings never join two items of one group",
    )
    y = rep.add_argument_group("yolo options")
    y.add_argument(
        "--classes",
        metavar="PATH",
        help="classes.txt / obj.names / data.yaml naming the class indices",
    )
    y.add_argument(
        "--image-sizes", metavar="CSV", help="CSV with columns item (or stem), width, height"
    )
    pt = rep.add_argument_group("potato options")
    pt.add_argument(
        "--schema",
        metavar="NAME",
        help="the Potato annotation scheme to read, when the project has several "
        "image_annotation schemes",
    )
    pt.add_argument(
        "--data-files",
        nargs="+",
        action="extend",
        metavar="FILE",
        help="Potato data files giving the image sizes, instead of the config's (.json, "
        ".jsonl, .csv or .tsv); an export given alone needs them. Put it after the inputs: "
        "its files end at the next option",
    )
    pt.add_argument(
        "--id-key",
        metavar="KEY",
        help="the item id of the data files (default: the config's item_properties.id_key, "
        "else id)",
    )
    _add_engine_options(rep, n_boot_default=200)

    demo = sub.add_parser(
        "demo",
        help="run the report on the bundled sample",
        description="Run the whole report on the bundled sample corpus "
        "(40 images, 4 annotators: careful, sloppy, a "
        "misser and a mislabeler).",
        epilog="example:\n  iaa-frames demo --out /tmp/demo",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo.add_argument(
        "-o",
        "--out",
        default="iaa-frames-demo",
        metavar="DIR",
        help="output directory (default: ./%(default)s)",
    )
    _add_engine_options(demo, n_boot_default=200)
    return parser
