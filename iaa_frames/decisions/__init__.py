"""From agreement to decisions: consensus annotations, how many items to annotate twice,
which items to send next.

* :func:`~iaa_frames.decisions.consensus.consensus`: one object per matched cluster,
  weighted by each annotator's quality (:mod:`.consensus`, with :mod:`.clusters`, :mod:`.votes`,
  :mod:`.weights`, :mod:`.masks` and :mod:`.staple`);
* :func:`~iaa_frames.decisions.plan.plan`: the number of items a 95 % interval of a
  given half-width needs, from a pilot (:mod:`.plan`), and
  :func:`~iaa_frames.decisions.sequential.plan_sequential`, the plan in stages (annotate
  the first batch, plan again; :mod:`.sequential`);
* :func:`~iaa_frames.decisions.next_items.next_items`: the items whose next annotation
  narrows the interval or settles the consensus most (:mod:`.next_items`).
"""

from .consensus import Consensus, consensus
from .next_items import next_items
from .plan import Plan, plan
from .sequential import SequentialPlan, plan_sequential

__all__ = [
    "Consensus",
    "Plan",
    "SequentialPlan",
    "consensus",
    "next_items",
    "plan",
    "plan_sequential",
]
