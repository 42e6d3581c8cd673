"""The geometry of annotated objects: shapes, areas, IoU, GIoU and their bounds.

Everything here is vectorized over arrays of pairs of objects. The modules, in the order
the computation uses them:

* ``kinds``: the geometry kinds (box, polygon, mask, and any registered one), each saying
  how it is read, normalized, bounded, measured and rasterized, and their registry;
* ``shapes``: :class:`~.shapes.Shapes`, the container of boxes, polygons, the parameters of
  other kinds and image sizes that every function takes, with its per-shape quantities as
  methods;
* ``shape_cache``: those per-shape quantities (areas, hulls, masks, ...), computed once;
* ``rings``: the vertices of every ring of many polygons, in one array;
* ``raster``: run-length masks of polygons on a pixel grid and their overlap (as COCO);
* ``clip``: the area of polygons inside rectangles, in numpy;
* ``mask_rule``: which pairs get the exact overlay and which the mask IoU, and why;
* ``overlap``: areas and the IoU of pairs;
* ``bounds``: cheap upper bounds of the IoU, which let the matcher skip pairs;
* ``box_index``: the object pairs of many pairings whose boxes overlap (a sort-and-sweep),
  so that dense items do not cost every pair of their objects;
* ``hull_support``: the support points of each shape's convex hull, and from them a lower
  bound of the area of the hull of two shapes, in numpy (GIoU's bound);
* ``giou``: the generalized IoU.

The distances built on them, and the registry of distances by name, are in
:mod:`iaa_frames.geometry.distances`, which also re-exports the public names used outside this
package (``from iaa_frames.geometry.distances import Shapes, iou``).
"""
