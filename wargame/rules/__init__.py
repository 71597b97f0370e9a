"""wargame.rules: one subpackage per rule system.

Each rule system registers its :class:`~wargame.engine.Ruleset` class here under
an id that names the edition, lazily (the module is imported on first use):

* ``waw-classic`` - World at War (Eisenbach Gap / Blood and Bridges), ``waw/``;
* planned: ``coh-2e`` (Conflict of Heroes 2nd ed.), ``fow-v3`` (Flames of War
  v3), ``bronepehota-2008`` (Бронепехота, 2008 rules).
"""

from wargame.engine.policy import register_policy
from wargame.engine.ruleset import register_ruleset

register_ruleset("waw-classic", "wargame.rules.waw.ruleset:WawRuleset")
# World at War's own AI players (wargame/rules/waw/ai/), beside its rules
for _name, _cls in (("greedy", "GreedyPolicy"), ("doctrine", "DoctrinePolicy")):
    register_policy(_name, f"wargame.rules.waw.ai:{_cls}", ruleset="waw-classic")
