"""`wargame odds bronepehota-2008`: exact shot odds of one armlist figure at
another (official_rules.md §7.4, Table 5), and its errors."""

from fractions import Fraction

import pytest

from wargame.cli import main


def _run(argv: str, capsys) -> tuple[int, str, str]:
    code = main(["odds", "bronepehota", *argv.split("|")])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_odds_of_a_tribunator_at_a_cyber_infantryman_are_exact(capsys):
    # §7.4 I: Д6+2 at 4.2 steps (5 rounded up) hits on 3..6 = 2/3; power Д12
    # above Бр 3 on 4..12 = 3/4: P(1 damage) = 1/2 exactly
    code, out, _ = _run(
        "--shooter|pl_tribunators|--target|tp_cyber_infantry|--range|4.2", capsys
    )
    assert code == 0
    assert "5 steps" in out
    assert f"P(hit) {float(Fraction(2, 3)):.4f}" in out
    assert "  1 damage  0.5000" in out


def test_odds_of_a_machine_weapon_at_a_machine_in_cover(capsys):
    # Spider's autocannon Д12 / 2Д20 at 3 steps: hit 10/12; Salamander's top
    # cell 7 + 3 (less than half visible, Table 5): each Д20 above 10 is 1/2;
    # P(0) = 1/6 + 5/6 * 1/4 = 3/8, P(2) = 5/6 * 1/4 = 5/24
    code, out, _ = _run(
        "--shooter|spider|--weapon|автоматическая пушка|--target|salamander"
        "|--range|3|--cover|less_than_half",
        capsys,
    )
    assert code == 0
    assert "each die above 10" in out
    assert "  0 damage  0.3750" in out
    assert f"  2 damage  {5 / 24:.4f}" in out


def test_odds_list_names_squads_machines_and_weapons(capsys):
    code, out, _ = _run("--list", capsys)
    assert code == 0
    assert "pl_tribunators" in out and "squad" in out
    assert "spider" in out and "автоматическая пушка" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            "--shooter|spidr|--target|salamander|--range|3",
            "--shooter: unknown 'spidr' (did you mean 'spider'?); choose one of:",
        ),
        (
            "--shooter|spider|--weapon|laser|--target|salamander|--range|3",
            "--weapon of spider: unknown 'laser'; choose one of: автоматическая "
            "пушка, спаренный пулемет",
        ),
        (
            "--shooter|spider|--target|salamander|--range|3",
            "--weapon is missing for machine 'spider'",
        ),
        (
            "--shooter|pl_tribunators|--target|salamander|--range|3|--cover|wall",
            "--cover: unknown 'wall'; choose one of: full, less_than_half",
        ),
        (
            "--shooter|pl_tribunators|--target|salamander|--range|3|--durability|9",
            "--durability must be 1..7 for Salamander",
        ),
        ("--shooter|pl_tribunators|--target|salamander", "--range is missing"),
    ],
)
def test_odds_bad_input_names_what_is_wrong_and_the_choices(argv, message, capsys):
    code, _, err = _run(argv, capsys)
    assert code == 2
    assert message in err
    assert "Traceback" not in err
