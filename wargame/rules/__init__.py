"""wargame.rules: one subpackage per rule system.

Each rule system registers its :class:`~wargame.engine.Ruleset` class here under
an id that names the edition, lazily (the module is imported on first use):

* ``waw-classic`` - World at War (Eisenbach Gap / Blood and Bridges), ``waw/``;
* ``coh-2e`` - Conflict of Heroes: Awakening the Bear, 2nd edition, ``coh/``;
* ``fow-v3`` - Flames of War, 3rd edition, ``fow/`` (in progress: movement and
  shooting on the real map; assault and morale still to come);
* ``bronepehota-2008`` - Бронепехота, official rules of 05.08.08,
  ``bronepehota/`` (in progress: squads soldier by soldier on the real map).
"""

from wargame.engine.policy import register_policy
from wargame.engine.ruleset import register_ruleset

register_ruleset("waw-classic", "wargame.rules.waw.ruleset:WawRuleset")
register_ruleset("coh-2e", "wargame.rules.coh.ruleset:CohRuleset")
register_ruleset("fow-v3", "wargame.rules.fow.ruleset:FowRuleset")
register_ruleset(
    "bronepehota-2008", "wargame.rules.bronepehota.ruleset:BronepehotaRuleset"
)
# World at War's own AI players (wargame/rules/waw/ai/), beside its rules
for _name, _cls in (("greedy", "GreedyPolicy"), ("doctrine", "DoctrinePolicy")):
    register_policy(_name, f"wargame.rules.waw.ai:{_cls}", ruleset="waw-classic")
# Conflict of Heroes' own AI players (wargame/rules/coh/ai.py)
for _name, _cls in (("greedy", "GreedyPolicy"), ("doctrine", "DoctrinePolicy")):
    register_policy(_name, f"wargame.rules.coh.ai:{_cls}", ruleset="coh-2e")
# Flames of War's greedy player (wargame/rules/fow/ai.py)
register_policy("greedy", "wargame.rules.fow.ai:GreedyPolicy", ruleset="fow-v3")
register_policy(
    "doctrine", "wargame.rules.fow.doctrine:DoctrinePolicy", ruleset="fow-v3"
)
# Бронепехота's own AI players (wargame/rules/bronepehota/ai.py)
for _name, _cls in (("greedy", "GreedyPolicy"), ("doctrine", "DoctrinePolicy")):
    register_policy(
        _name, f"wargame.rules.bronepehota.ai:{_cls}", ruleset="bronepehota-2008"
    )
