"""Looking into a result: tables, items, conflicts, confusion, distances and matches.

Everything here reads pair tables or a result and returns long-form frames for people and
for :mod:`iaa_frames.plot`: the result's tables (:mod:`~iaa_frames.explore.views`,
:mod:`~iaa_frames.explore.compact`), the distances behind a cell
(:mod:`~iaa_frames.explore.distances`), per-item drilldown (:mod:`~iaa_frames.explore.items`,
:mod:`~iaa_frames.explore.item`, :mod:`~iaa_frames.explore.item_agreement`), object-level
conflicts and label confusion (:mod:`~iaa_frames.explore.conflicts`,
:mod:`~iaa_frames.explore.confusion`) and who matched whom
(:mod:`~iaa_frames.explore.matches`).
"""
