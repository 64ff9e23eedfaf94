"""The verdict on a situation's balance, in words, in one place: every command that states one
(`balance run` on the terminal and in summary.json, report.html, compare, sweep, suggest,
equilibrium) builds it here.

A verdict rests on three things, and says all three in its sentence:

- **the players** it was measured with ("between the default heuristic players: ...", "between
  the equilibrium mixtures of 4 German and 3 Russian players: ..."): balance measured with bots
  moves with the bots;
- **the balance measure**: D, the first side's chance of winning minus the second side's, in
  percentage points, with its 95 % interval (Newcombe's paired interval for one set of games, a
  bootstrap interval for an equilibrium mixture).  Draws count for neither side: D says who wins
  the decided games more often, not whether games are decided;
- **the draws**: a card whose games end mostly drawn (half of them or more) is "mostly drawn",
  not "balanced", whatever D says; a draw share of 10 % or more is stated beside the verdict.

The band of a verdict: *balanced* (D's whole interval within ±5 points), *unclear* (the interval
holds 0 but reaches beyond ±5: more games needed), else the favoured side with *slight* (|D| under
15 points), *clear* (under 30) or *one-sided* (30 or more).  Two verdicts of one card "depend on
play" when their favoured side or their band differ (`depends_on_play`); when either is unclear,
that cannot be told yet.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from simulator.stats import wilson, win_difference

BALANCED_POINTS = 5.0      # "balanced": the whole interval of D within ± this many points
BANDS = (("slight", 15.0), ("clear", 30.0))   # |D| below these points; "one-sided" beyond
MOSTLY_DRAWN = 0.5         # draw share from which a card is "mostly drawn"
DRAWS_STATED = 0.10        # draw share from which the verdict states it
ORDER = ("balanced", "slight", "clear", "one-sided")   # "unclear" stands apart

MEASURE = ("D = the first side's chance of winning minus the second side's, in percentage points, "
           "with its 95 % interval; draws count for neither side and are stated beside the verdict "
           f"(from {DRAWS_STATED:.0%} of games; from {MOSTLY_DRAWN:.0%} the card is 'mostly drawn'). "
           f"Bands: balanced = the whole interval within ±{BALANCED_POINTS:g} points; slight = |D| under "
           f"{BANDS[0][1]:g}; clear = under {BANDS[1][1]:g}; one-sided = {BANDS[1][1]:g} or more; "
           "unclear = the interval holds 0 but is too wide to call it balanced")


@dataclass(frozen=True)
class Verdict:
    players: str          # "between the default heuristic players"
    first: str
    second: str
    difference: float     # D as a probability difference
    lo: float
    hi: float
    draw: float
    draw_lo: float
    draw_hi: float
    interval: str = "Newcombe"   # how D's interval was made ("Newcombe" paired score, "bootstrap")

    @property
    def favours(self) -> str | None:
        """The side D's interval favours, or None when it holds 0."""
        if self.lo > 0:
            return self.first
        if self.hi < 0:
            return self.second
        return None

    @property
    def band(self) -> str:
        b = BALANCED_POINTS / 100
        if -b < self.lo and self.hi < b:
            return "balanced"
        if self.favours is None:
            return "unclear"
        d = abs(100 * self.difference)
        return next((name for name, top in BANDS if d < top), "one-sided")

    @property
    def mostly_drawn(self) -> bool:
        return self.draw >= MOSTLY_DRAWN

    def balance_words(self) -> str:
        """The balance alone: 'balanced within ±5 points', 'clearly favours the Germans by 20 ± 2 points'."""
        band = self.band
        if band == "balanced":
            return f"balanced within ±{BALANCED_POINTS:g} points"
        if band == "unclear":
            return (f"no clear favourite, but not shown to be within ±{BALANCED_POINTS:g} points "
                    f"(D {_signed(self.difference)} points, 95 % interval {_signed(self.lo)} to {_signed(self.hi)}; "
                    "need more games)")
        side = people(self.favours)
        pts = _points(100 * self.difference, 100 * self.lo, 100 * self.hi)
        if band == "one-sided":
            return f"one-sided: favours the {side} by {pts}"
        return f"{'slightly' if band == 'slight' else 'clearly'} favours the {side} by {pts}"

    def draw_words(self) -> str:
        return (f"{100 * self.draw:.0f} % of games drawn (95 % interval {100 * self.draw_lo:.0f} "
                f"to {100 * self.draw_hi:.0f})")

    def text(self) -> str:
        """The whole sentence, players first."""
        if self.mostly_drawn and self.draw >= 1.0:
            # No game was decided: there is no "rest" to weigh.
            body = f"every game drawn ({self.draw_words()})"
        elif self.mostly_drawn:
            body = f"mostly drawn: {self.draw_words()}; of the rest, {self.balance_words()}"
        elif self.draw >= DRAWS_STATED:
            body = f"{self.balance_words()}, with {self.draw_words()}"
        else:
            body = self.balance_words()
        return f"{self.players}: {body}"

    def as_dict(self) -> dict:
        """What summary.json and the experiments' JSON record."""
        out = {k: (round(float(v), 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}
        out.update(text=self.text(), band=self.band, favours=self.favours, mostly_drawn=bool(self.mostly_drawn),
                   measure=MEASURE)
        return out


def sentence(text: str) -> str:
    """A verdict's text as a sentence of its own: 'Between the default heuristic players: ...'."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def from_counts(first: str, second: str, wins_first: int, wins_second: int, n: int, players: str) -> Verdict:
    """A verdict from one set of n games (Newcombe's interval for D, Wilson's for the draws)."""
    d, lo, hi = win_difference(wins_first, wins_second, n)
    draws = n - wins_first - wins_second
    dlo, dhi = wilson(draws, n)
    return Verdict(players, first, second, d, lo, hi, draws / n, dlo, dhi)


def from_winners(winners, sides, players: str) -> Verdict:
    """A verdict from the winners of a set of games (a side's name or "draw")."""
    first, second = sides
    w = list(winners)
    return from_counts(first, second, w.count(first), w.count(second), len(w), players)


def from_dict(d: dict) -> Verdict:
    """Back from `Verdict.as_dict` (a saved summary or equilibrium result)."""
    names = Verdict.__dataclass_fields__
    return Verdict(**{k: d[k] for k in names if k in d})


def depends_on_play(a: Verdict, b: Verdict) -> bool | None:
    """Whether two verdicts of one card (say the default pair's and the equilibrium's) disagree on
    the favoured side or the band, or one calls it mostly drawn and the other not.  None when either
    is "unclear": its interval is too wide to say which band it is in, so whether the band changes
    cannot be told yet (more games), and calling that "depends on play" would blame the players for
    what is noise."""
    if "unclear" in (a.band, b.band):
        return None
    return bool(a.favours != b.favours or a.band != b.band or a.mostly_drawn != b.mostly_drawn)


PLAY_WORDS = {
    True: "Depends on play: the favoured side or the band changes when the players get better; "
          "the default pair's verdict is not a property of the card.",
    False: "Holds under better play: the favoured side and the band are the same at equilibrium.",
    None: "Cannot tell yet whether the verdict depends on play: one of the two verdicts is unclear "
          "(its interval is too wide to place it in a band); play more games a pair (--games).",
}


def play_words(flag: bool | None) -> str:
    """The sentence for a `depends_on_play` flag, the same on the terminal, in summaries and in reports."""
    return PLAY_WORDS[flag]


# ----------------------------------------------------------------------------- the players' words

def player_words(p: dict) -> str:
    """One side's player as a summary records it ({"name", "params", optional "source"})."""
    name, params = p["name"], p.get("params") or {}
    if p.get("source"):
        return f"{name} player of {p['source']}"
    if not params:
        return f"default {name} player"
    if len(params) <= 3:
        return f"{name} player with " + ", ".join(f"{k} {v:g}" for k, v in params.items())
    return f"{name} player with {len(params)} parameters changed"


def players_phrase(policies: dict) -> str:
    """'between the default heuristic players', or each side's player named: the words every
    verdict starts with.  `policies`: side -> {"name", "params"[, "source"]} (summary.json's)."""
    sides = list(policies)
    words = {s: player_words(policies[s]) for s in sides}
    if len(set(words.values())) == 1 and not policies[sides[0]].get("params") and not policies[sides[0]].get("source"):
        return f"between the default {policies[sides[0]]['name']} players"
    return "between " + " and ".join(f"the {s.capitalize()} {words[s]}" for s in sides)


def people(side: str) -> str:
    """A side as its people: 'german' -> 'Germans'; a demonym in -sh, -ch, -ese or -ss is its own
    plural ('british' -> 'British', not 'Britishs')."""
    name = side.capitalize()
    return name if name.endswith(("sh", "ch", "ese", "ss")) else f"{name}s"


def _signed(x: float) -> str:
    return f"{100 * x:+.0f}"


def _points(d: float, lo: float, hi: float) -> str:
    """'35 ± 8 points' when the interval is symmetric at the precision shown, else its two ends,
    '100 points (95 % interval 98 to 100)': an interval near 0 % or 100 % is lopsided, and
    '100 ± 1' would claim up to 101."""
    d, lo, hi = abs(d), *sorted((abs(lo), abs(hi)))
    below, above = round(d) - round(lo), round(hi) - round(d)
    if below == above:
        return f"{d:.0f} ± {below:.0f} points"
    return f"{d:.0f} points (95 % interval {lo:.0f} to {hi:.0f})"
