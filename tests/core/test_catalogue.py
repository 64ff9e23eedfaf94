"""The generic player catalogue (policies/catalogue.py) every ruleset declares its players in:
`--policy` items, policy files, parameter files, style folders and the kernels' parameter row."""

from __future__ import annotations

import numpy as np
import pytest

from policies.catalogue import Catalogue, Param, PlayerType, param_table
from simulator.api import ParamRange
from simulator.errors import DataError


def _catalogue(styles_dir=None) -> Catalogue:
    return Catalogue([
        PlayerType("dice", 0, {"bold": Param(0.5, "chance to push on", 0.0, 1.0)}),
        PlayerType("scout", 1, {"reach": Param(3, "hexes it looks ahead", 1, 6, whole=True),
                                "fixed": Param(2.0, "not tuned: equal bounds", 2.0, 2.0),
                                "free": Param(1.0, "not tuned: no bounds")}),
    ], default="scout", replay_default="dice", styles_dir=styles_dir)


def test_specs_carry_defaults_and_pad_to_the_longest_player():
    c = _catalogue()
    s = c.spec("dice:bold=0.9")
    assert (s.name, s.kernel_id, s.params, s.label()) == ("dice", 0, {"bold": 0.9}, "dice:bold=0.9")
    assert c.width == 3 and s.vector().tolist() == [0.9, 0.0, 0.0]   # the kernels' row: 3 wide
    assert s.vector(1).tolist() == [0.9]
    assert c.spec("scout").full_params() == {"reach": 3, "fixed": 2.0, "free": 1.0}
    assert c.make("scout", {"reach": 4}, "tuned.toml").source == "tuned.toml"


def test_space_is_the_bounded_parameters_with_room_to_search():
    c = _catalogue()
    assert c.space("scout") == (ParamRange("reach", 3, 1, 6, True),)
    assert c.space("dice") == (ParamRange("bold", 0.5, 0.0, 1.0, False),)


@pytest.mark.parametrize("text, message", [
    ("clever", "unknown policy 'clever'"),
    ("dice:nerve=1", "dice has no parameter 'nerve'"),
    ("dice:bold=lots", "'lots' is not a number"),
    ("dice:bold=inf", "'inf' is not finite"),
    ("dice:bold", "not KEY=VALUE"),
])
def test_bad_items_say_what_was_expected(text, message):
    with pytest.raises(DataError) as e:
        _catalogue().spec(text)
    assert message in e.value.line()


def test_sides_policy_files_and_styles(tmp_path):
    styles = tmp_path / "styles"
    styles.mkdir()
    (styles / "far.toml").write_text('policy = "scout"\n[params]\nreach = 6\n')
    (styles / "timid.toml").write_text('policy = "dice"\n[params]\nbold = 0.1\n[provenance]\nby = "hand"\n')
    c = _catalogue(styles)
    out = c.parse([f"red=@{styles / 'far.toml'}", "blue=dice"], ["red", "blue"])
    assert out["red"].full_params()["reach"] == 6 and out["red"].source == str(styles / "far.toml")
    assert out["blue"].name == "dice"
    assert c.parse(None, ["red", "blue"])["blue"].name == "scout"
    with pytest.raises(DataError, match="unknown side"):
        c.parse(["green=dice"], ["red", "blue"])
    assert c.styles("scout") == {"far": {"reach": 6.0}} and c.styles("dice") == {"timid": {"bold": 0.1}}
    assert _catalogue().styles("scout") == {}
    bad = tmp_path / "bad.toml"
    for text, fld in (('policy = "scout"\n[params]\nnerve = 1\n', "params.nerve"),
                      ('policy = "scout"\n[params]\nreach = true\n', "params.reach"),
                      ('policy = "clever"\n', "policy"),
                      ('policy = "scout"\nextra = 1\n', "extra")):
        bad.write_text(text)
        with pytest.raises(DataError) as e:
            c.spec(f"@{bad}")
        assert (e.value.file, e.value.field) == (str(bad), fld), text


def test_parameter_files_are_checked_against_the_kernels_names(tmp_path):
    f = tmp_path / "params.toml"
    f.write_text('[param.reach]\ndefault = 3\nmin = 1\nmax = 6\nmeaning = "hexes"\n'
                 '[param.bold]\ndefault = 0.5\nmin = 0\nmax = 1\nmeaning = "chance"\n')
    params = param_table(f, ("reach", "bold"))
    assert params["reach"] == Param(3.0, "hexes", 1.0, 6.0, True) and not params["bold"].whole
    with pytest.raises(DataError, match="out of order"):
        param_table(f, ("bold", "reach"))
    with pytest.raises(DataError, match="missing"):
        param_table(f, ("reach", "bold", "nerve"))
    f.write_text('[param.reach]\ndefault = 9\nmin = 1\nmax = 6\nmeaning = "hexes"\n')
    with pytest.raises(DataError) as e:
        param_table(f, ("reach",))
    assert e.value.field == "param.reach" and "outside" in e.value.line()


def test_markdown_lists_every_parameter():
    md = _catalogue().markdown("scout")
    assert "| `reach` | 3 | 1 | 6 | hexes it looks ahead |" in md and "| `free` | 1 |  |  | not tuned: no bounds |" in md
    assert np.isfinite(_catalogue().spec("scout").vector()).all()
