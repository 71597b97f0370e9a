"""FoW v3 hit allocation: the target's owner spreads each weapon type's hits
(research/fow.md §3.3), with worked example E6 (§8)."""

from __future__ import annotations

import pytest

from wargame.rules.fow import allocate

TEAMS = ["hq", "rifle1", "rifle2", "mg"]


def test_E6_allocation_each_type_spread_owner_chooses() -> None:
    """5 rifle hits and 2 HMG hits on 4 teams: rifles 2-1-1-1, HMGs 1-1-0-0; each
    type is kept apart; the owner's order, not the shooter's, picks the teams."""
    got = allocate({"rifle": 5, "hmg": 2}, TEAMS)
    assert list(got["rifle"].values()) == [2, 1, 1, 1]
    assert list(got["hmg"].values()) == [1, 1, 0, 0]
    assert sum(got["rifle"].values()) == 5 and sum(got["hmg"].values()) == 2
    # the one-each rule per type: nobody has two of a type while another has none
    for per_team in got.values():
        assert max(per_team.values()) - min(per_team.values()) <= 1
    # another owner preference puts the same hits on other teams
    owner_order = ["mg", "rifle2", "rifle1", "hq"]
    other = allocate({"rifle": 5, "hmg": 2}, owner_order)
    assert other["hmg"] == {"mg": 1, "rifle2": 1, "rifle1": 0, "hq": 0}
    assert other["rifle"]["mg"] == 2 and other["rifle"]["hq"] == 1


def test_every_team_is_listed_in_the_owners_order() -> None:
    got = allocate({"at": 1}, TEAMS)
    assert list(got["at"]) == TEAMS
    assert got["at"] == {"hq": 1, "rifle1": 0, "rifle2": 0, "mg": 0}


def test_more_hits_than_teams_wrap_around() -> None:
    # "multiple kills": the assumption is an even wrap-around (research §10 item 8)
    got = allocate({"mg": 9}, ["a", "b"])
    assert got == {"mg": {"a": 5, "b": 4}}
    for n in range(0, 20):
        per_team = allocate({"x": n}, TEAMS)["x"]
        assert sum(per_team.values()) == n
        assert max(per_team.values()) - min(per_team.values()) <= 1


def test_no_hits_and_no_teams() -> None:
    assert allocate({}, TEAMS) == {}
    assert allocate({"mg": 0}, []) == {"mg": {}}


def test_bad_allocation_input_names_the_argument() -> None:
    with pytest.raises(ValueError, match=r"hits\['mg'\] must be at least 0"):
        allocate({"mg": -1}, TEAMS)
    with pytest.raises(ValueError, match=r"hits\['mg'\] must be an integer"):
        allocate({"mg": 1.5}, TEAMS)  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="teams: each team once"):
        allocate({"mg": 1}, ["a", "a"])
    with pytest.raises(ValueError, match="no team to take them"):
        allocate({"mg": 2}, [])
