"""NIfTI label volumes (radiologists' segmentations) into the tidy frame of volume rows.

One label volume per annotator per scan: an integer array, 0 the background and every
other value a label. Each label of a volume becomes one object (a row of the ``volume``
kind, :mod:`iaa_frames.geometry.kinds.volume`), or, with ``instances=True``, each
connected component of a label (``scipy.ndimage.label``: lesions, nodules, metastases
counted one by one). The voxel volume is the product of the header's first three zooms,
so volumes are in mm³ (NIfTI's usual spatial unit).

Files are read with ``nibabel`` (the ``nifti`` extra: ``pip install iaa-frames[nifti]``);
arrays and nibabel images are taken as they are, so a reader of another format (DICOM-SEG,
NRRD) only has to hand over arrays and zooms.
"""

from __future__ import annotations

import os

import numpy as np

from iaa_frames.errors import ParameterError, ReaderError

__all__ = ["check_header", "read_nifti"]


def _load(source, zooms):
    """``(array, zooms)`` of a path, a nibabel image, an array or ``(array, zooms)``."""
    if isinstance(source, tuple) and len(source) == 2:
        return np.asarray(source[0]), tuple(float(z) for z in source[1])
    if isinstance(source, np.ndarray):
        return source, tuple(float(z) for z in zooms)
    if isinstance(source, str | os.PathLike):
        try:
            import nibabel
        except ImportError:  # pragma: no cover - the extra is installed in CI
            raise ImportError(
                "reading NIfTI files needs nibabel: pip install 'iaa-frames[nifti]'"
            ) from None
        path = os.fspath(source)
        check_header(path)  # before nibabel allocates what the header declares
        try:  # nibabel reads the data lazily: a file cut short fails here, not at load
            image = nibabel.load(path)
            data = np.asarray(image.dataobj)
            z = tuple(float(v) for v in image.header.get_zooms()[:3])
        except Exception as exc:
            raise ReaderError(f"{path}: not a NIfTI volume ({exc})") from exc
        return data, z
    if hasattr(source, "dataobj") and hasattr(source, "header"):
        data = np.asanyarray(source.dataobj)
        z = tuple(float(v) for v in source.header.get_zooms()[:3])
        return data, z
    raise ParameterError(
        "a volume is a path, a nibabel image, a 3D array or (array, zooms); got "
        f"{type(source).__name__}"
    )


#: bits per voxel of the NIfTI-1/2 datatype codes (nifti1.h), for the size check.
_BITPIX = {2: 8, 4: 16, 8: 32, 16: 32, 64: 64, 256: 8, 512: 16, 768: 32, 1024: 64, 1280: 64}


def check_header(path) -> None:
    """Check a NIfTI-1 or NIfTI-2 file's header against the file before its data is read:
    the declared dimensions times the voxel size, from ``vox_offset``, must fit in the
    file (for a ``.gz`` file, in the uncompressed size it records or, when that is short,
    in what its stream holds, counted in chunks), so that a header declaring more than
    the file holds is refused before any allocation.

    Raises
    ------
    ReaderError
        Naming the file: no NIfTI header, an unknown datatype, dimensions that are not
        positive, or data the file is too short to hold.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.nii"
    >>> _ = p.write_bytes(b"not a header")
    >>> check_header(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ReaderError: ...x.nii: not a NIfTI volume (a header of 12 bytes; NIfTI-1 needs 348)
    """
    import gzip
    import struct

    path = os.fspath(path)
    gz = path.endswith(".gz")
    try:
        with gzip.open(path, "rb") if gz else open(path, "rb") as f:  # noqa: SIM115
            head = f.read(540)
        size = os.path.getsize(path)
        if gz:
            with open(path, "rb") as f:
                f.seek(-4, os.SEEK_END)
                size = struct.unpack("<I", f.read(4))[0]  # ISIZE: the size modulo 2**32
    except (OSError, EOFError) as exc:
        raise ReaderError(f"{path}: not a NIfTI volume ({exc})") from exc
    if len(head) < 348:
        raise ReaderError(
            f"{path}: not a NIfTI volume (a header of {len(head)} bytes; NIfTI-1 needs 348)"
        )
    for order in "<>":
        sizeof_hdr = struct.unpack_from(order + "i", head, 0)[0]
        if sizeof_hdr in (348, 540):
            break
    else:
        raise ReaderError(f"{path}: not a NIfTI volume (sizeof_hdr is neither 348 nor 540)")
    if sizeof_hdr == 348:
        dim = struct.unpack_from(order + "8h", head, 40)
        datatype = struct.unpack_from(order + "h", head, 70)[0]
        offset = struct.unpack_from(order + "f", head, 108)[0]
    else:
        if len(head) < 540:
            raise ReaderError(f"{path}: a NIfTI-2 header cut short ({len(head)} bytes)")
        datatype = struct.unpack_from(order + "h", head, 12)[0]
        dim = struct.unpack_from(order + "8q", head, 16)
        offset = struct.unpack_from(order + "q", head, 168)[0]
    bits = _BITPIX.get(datatype)
    if bits is None:
        raise ReaderError(f"{path}: NIfTI datatype {datatype} is no label volume type")
    ndim = dim[0]
    if not 1 <= ndim <= 7 or any(d < 1 for d in dim[1 : ndim + 1]):
        raise ReaderError(f"{path}: NIfTI dimensions {dim[: ndim + 1]} are not positive")
    need = int(offset) + int(np.prod([int(d) for d in dim[1 : ndim + 1]], dtype=object)) * bits // 8
    magic = head[344:348] if sizeof_hdr == 348 else head[4:8]
    if magic[:3] in (b"ni1", b"ni2"):  # a header and image pair: the data is in the .img
        return
    if gz and need > size:  # ISIZE is the size modulo 2**32: count what the data holds
        size = _gunzipped_size(path, need)
    if need > size:
        raise ReaderError(
            f"{path}: the header declares {need:,} bytes of volume (dimensions "
            f"{tuple(dim[1 : ndim + 1])}, {bits} bits a voxel) but the file holds {size:,}"
        )


def _gunzipped_size(path: str, upto: int) -> int:
    """The uncompressed size of a gzip file, counted in chunks up to ``upto`` bytes (a
    corrupt stream counts as ending there)."""
    import gzip
    import zlib

    n = 0
    try:
        with gzip.open(path, "rb") as f:
            while n < upto:
                chunk = f.read(min(1 << 22, upto - n))
                if not chunk:
                    break
                n += len(chunk)
    except (OSError, EOFError, zlib.error):
        pass
    return n


def _sources(paths_or_mapping):
    """``[(item, annotator, source)]`` from ``{item: {annotator: source}}`` or
    ``{(item, annotator): source}``."""
    if not isinstance(paths_or_mapping, dict):
        raise ParameterError(
            "read_nifti takes {item: {annotator: path}} or {(item, annotator): path}; got "
            f"{type(paths_or_mapping).__name__}"
        )
    out = []
    for key, value in paths_or_mapping.items():
        if isinstance(value, dict):
            out.extend((key, who, src) for who, src in value.items())
        elif isinstance(key, tuple) and len(key) == 2:
            out.append((key[0], key[1], value))
        else:
            raise ParameterError(
                f"read_nifti: the entry {key!r} is neither item: {{annotator: path}} nor "
                "(item, annotator): path"
            )
    return out


def read_nifti(
    paths_or_mapping,
    *,
    instances: bool = False,
    labels=None,
    connectivity: int = 1,
    zooms=(1.0, 1.0, 1.0),
    on_invalid: str = "raise",
    return_dropped: bool = False,
):
    """Read label volumes (NIfTI files, nibabel images or arrays) into volume rows.

    Parameters
    ----------
    paths_or_mapping : dict
        ``{item: {annotator: source}}`` or ``{(item, annotator): source}``: one label
        volume per scan (the item) and annotator. A source is a path to a ``.nii`` or
        ``.nii.gz`` file, a nibabel image, a 3D integer array or ``(array, zooms)``.
    instances : bool, default False
        One object per connected component of each label (``scipy.ndimage.label``)
        instead of one per label: for lesions counted one by one.
    labels : dict or list, optional
        The label values to keep: a list of values, or ``{value: name}`` naming them
        (the label column). By default every nonzero value, named by its number.
    connectivity : {1, 2, 3}, default 1
        With ``instances``: voxels sharing a face (1), an edge (2) or a corner (3) are
        connected.
    zooms : three floats, default (1, 1, 1)
        The voxel size of sources that are bare arrays (files and images give theirs).
    on_invalid, return_dropped
        As the other readers (:func:`iaa_frames.read_coco`).

    Returns
    -------
    pandas.DataFrame
        One row per object: ``item, annotator, label, object_id``
        (``annotator/item/label``, ``annotator/item/label#k`` for the k-th component), the ``vol_*`` columns of the volume kind
        (``x0, y0, x1, y1`` its voxel-index box along the first two axes) and
        ``volume_mm3``; a coverage row for an annotator whose volume has no label voxel.

    Raises
    ------
    ReaderError
        A file that is not a NIfTI volume, a volume that is not 3D (a 4D volume with one
        frame is taken), or volumes of one scan with different shapes.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.zeros((6, 6, 6), np.uint8); a[1:3, 1:3, 1:3] = 1; a[4:6, 4:6, 4:6] = 1
    >>> b = a.copy(); b[4:6, 4:6, 4:6] = 0
    >>> df = read_nifti({"scan1": {"ana": (a, (2, 1, 1)), "ben": (b, (2, 1, 1))}},
    ...                 instances=True, labels={1: "lesion"})
    >>> df[["annotator", "label", "object_id", "vol_voxels", "volume_mm3"]].to_numpy().tolist()
    [['ana', 'lesion', 'ana/scan1/lesion#1', 8.0, 16.0], ['ana', 'lesion', 'ana/scan1/lesion#2', 8.0, 16.0], ['ben', 'lesion', 'ben/scan1/lesion#1', 8.0, 16.0]]
    """
    from scipy import ndimage

    from iaa_frames.geometry.kinds.volume import RUNS, VOLUME_COLUMNS, voxel_params

    from .builder import FrameBuilder, finish

    if connectivity not in (1, 2, 3):
        raise ParameterError(f"connectivity must be 1, 2 or 3; got {connectivity!r}")
    names = None
    if labels is not None:
        names = (
            {int(k): str(v) for k, v in labels.items()}
            if isinstance(labels, dict)
            else {int(k): str(int(k)) for k in labels}
        )
    structure = ndimage.generate_binary_structure(3, connectivity)
    builder = FrameBuilder("nifti", on_invalid=on_invalid)
    shapes: dict = {}
    for item, annotator, source in _sources(paths_or_mapping):
        name = os.fspath(source) if isinstance(source, str | os.PathLike) else f"{item}/{annotator}"
        file_idx = builder.add_file(name)
        data, z = _load(source, zooms)
        if data.ndim == 4 and data.shape[3] == 1:
            data = data[..., 0]
        if data.ndim != 3:
            raise ReaderError(f"{name}: a label volume is 3D; got shape {data.shape}")
        if len(z) < 3:
            raise ReaderError(f"{name}: three zooms needed; got {z}")
        if shapes.setdefault(item, data.shape) != data.shape:
            raise ReaderError(
                f"{name}: shape {data.shape}, but another volume of {item!r} has "
                f"{shapes[item]}: the annotators of a scan label one grid"
            )
        data = np.asarray(data)
        if not np.issubdtype(data.dtype, np.integer):
            rounded = np.rint(data)
            if not np.array_equal(rounded, data):
                raise ReaderError(f"{name}: label volumes hold integers; got {data.dtype}")
            data = rounded.astype(np.int64)
        values = np.unique(data)
        values = values[values != 0]
        if names is not None:
            values = values[np.isin(values, list(names))]
        builder.cover(item, annotator, file_idx=file_idx)
        for value in values.tolist():
            label = names[value] if names is not None else str(value)
            mask = data == value
            if instances:
                comp, n = ndimage.label(mask, structure=structure)
                parts = []
                for k, box in enumerate(ndimage.find_objects(comp), start=1):
                    offset = np.array([s.start for s in box])
                    parts.append((f"{label}#{k}", np.argwhere(comp[box] == k) + offset))
            else:
                parts = [(label, np.argwhere(mask))]
            for object_id, ijk in parts:
                row = voxel_params(ijk, zooms=z[:3])
                params = [row[c] for c in VOLUME_COLUMNS]
                extras = {"volume_mm3": row["vol_voxels"] * row["vol_voxel_mm3"]}
                oid = f"{annotator}/{item}/{object_id}"
                kw = dict(object_id=oid, file_idx=file_idx, extras=extras, payload=row[RUNS])
                builder.add_shape(item, annotator, label, "volume", params, **kw)
    return finish(builder, on_invalid=on_invalid, return_dropped=return_dropped)
