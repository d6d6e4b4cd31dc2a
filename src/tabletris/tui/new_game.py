"""The new-game screen: game, preset, every rules option with its explanation, seats, seed.

The option form is generated from the engine's rules dataclass (``DiceRules``/``TowerRules``): a
switch for a yes/no option, a list for an option whose values ``RULE_HELP`` names in quotes (each
checked with the engine before it is offered), a text field (JSON or plain text) for the rest.
Whatever is entered is checked by ``from_dict``; its error text is shown as is. What a game adds
to the form (the tower game's choice of tower, seat by seat) is its ``GameUI.seat_options``, and
the bots a seat may be are the ones the game offers (``bots_for``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable
from typing import Any, get_type_hints

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static, Switch

from tabletris.bots.registry import bot_names, bots_for
from tabletris.engine.games import spec as spec_of_game
from tabletris.engine.options import (
    VALUE_CONTEXT,
    VALUE_LABELS,
    RulesError,
    options_to_dict,
    value_choices,
)
from tabletris.i18n import DEFAULT, current_language
from tabletris.table.seats import SeatSpec
from tabletris.tui.game_ui import SeatOption, game_label, ui_of
from tabletris.tui.setup import (
    DEFAULT_GAME,
    GAMES,
    MAX_SEATS,
    Setup,
    default_seat_name,
    kind_label,
    rules_model,
)
from tabletris.tui.texts import N_, TranslatedBindings, _, engine_text, pgettext

NO_SEAT = "-"


def value_labels() -> dict[str, str]:
    """Presets and option values as a player reads them in the form's lists: the engine's
    ``VALUE_LABELS`` through the catalogs, as the web shows them (the values stay the engine's
    and the records')."""
    return {value: pgettext(VALUE_CONTEXT, label) for value, label in VALUE_LABELS.items()}


def value_label(value: str) -> str:
    return value_labels().get(value, value)


def option_choices(cls: type[Any], name: str, help_text: str) -> list[str]:
    """The values a string option takes (the engine reads them from its help text)."""
    return value_choices(cls, name, help_text)


def seat_bots(game: str) -> list[str]:
    """The bots a seat of ``game`` may be: the ones its spec offers (``GameSpec.bots``), so the
    form never seats a bot that cannot play the game (``mcts`` in a tower game, the ``oracle``
    in a dice game)."""
    return bots_for(game)


def option_label(name: str) -> str:
    """An option's name as words for its label: ``draw_achievements`` reads "Draw achievements"."""
    return name.replace("_", " ").capitalize()


__all__ = ["NewGameScreen", "default_seat_name", "option_choices", "option_label", "seat_bots"]


def show_value(value: Any) -> str:
    """An option's value as the text field shows it: JSON, except plain strings; empty for none."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, tuple):
        value = list(value)
    return json.dumps(value)


def parse_value(text: str) -> Any:
    """Text from a field: JSON when it parses (numbers, lists, null), else the text itself; an
    empty field is no value (the option's "none", which the engine accepts or explains)."""
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


class NewGameScreen(TranslatedBindings, Screen[None]):
    """Edit a ``Setup`` and start it; the last setup used is where it begins."""

    BINDINGS = [
        Binding("ctrl+s", "start", N_("Start")),
        Binding("f5", "start", N_("Start"), show=False),
        Binding("ctrl+t", "tutorial", N_("Tutorial")),
        Binding("escape", "back", N_("Back")),
        Binding("f1", "app.help", N_("Help")),
        Binding("ctrl+q", "app.quit", N_("Quit")),
    ]

    def __init__(self, setup: Setup, *, start: Callable[[Setup], object]) -> None:
        """``start`` starts the game the form describes (``App.start_game``: it says so when the
        engine refuses it, and the form stays)."""
        super().__init__()
        self.start_game = start
        self.setup = dataclasses.replace(setup, seats=list(setup.seats), rules=dict(setup.rules))
        if self.setup.game not in GAMES:
            self.setup.game = DEFAULT_GAME
        self.model_error = ""

    # -------------------------------------------------------------- layout

    def _model(self) -> tuple[type[Any] | None, dict[str, Any], dict[str, str]]:
        try:
            cls, presets, help_texts = rules_model(self.setup.game)
        except RulesError as e:
            self.model_error = engine_text(e)
            return None, {}, {}
        self.model_error = ""
        return cls, dict(presets), dict(help_texts)

    def compose(self) -> ComposeResult:
        cls, presets, help_texts = self._model()
        preset = str(self.setup.rules.get("preset", "standard"))
        if preset not in presets:
            preset = "standard"
        with Horizontal(id="setup-main"):
            with VerticalScroll(id="setup-left"):
                yield Static(Content.assemble((_("New game"), "bold"), "  ", (_("ctrl+s starts · F1 help"), "dim")))
                with Horizontal(classes="field-row"):
                    yield Label(_("game"), classes="field-label")
                    yield Select([(game_label(g), g) for g in GAMES], value=self.setup.game, allow_blank=False, id="game",
                                 compact=True)
                if presets:
                    with Horizontal(classes="field-row"):
                        yield Label(pgettext("form field", "preset"), classes="field-label")
                        preset_help = spec_of_game(self.setup.game).preset_help.get(preset)
                        yield Select([(value_label(p), p) for p in presets], value=preset, allow_blank=False, id="preset",
                                     compact=True, tooltip=engine_text(preset_help) if preset_help else None)
                with Horizontal(classes="field-row"):
                    yield Label(_("seed"), classes="field-label")
                    yield Input(
                        "" if self.setup.seed is None else str(self.setup.seed),
                        placeholder=pgettext("seed", "random"),
                        type="integer",
                        valid_empty=True,
                        id="seed",
                        compact=True,
                    )
                with Horizontal(classes="field-row"):
                    yield Label(_("save to"), classes="field-label")
                    yield Input(
                        "" if self.setup.save is None else str(self.setup.save),
                        placeholder=_("record file (optional)"),
                        id="save",
                        compact=True,
                    )
                yield Static(Content.assemble((pgettext("form section", "Seats"), "bold"), "  ", (_("kind · name · strength"), "dim")))
                kinds = [("—", NO_SEAT), (kind_label("human"), "human")] + [(kind_label(b), b) for b in seat_bots(self.setup.game)]
                known = {k for _, k in kinds}
                for i in range(MAX_SEATS[self.setup.game]):
                    spec = self.setup.seats[i] if i < len(self.setup.seats) else None
                    kind = spec.kind if spec is not None else NO_SEAT
                    if kind not in known:
                        kinds.append((kind, kind))
                        known.add(kind)
                    with Horizontal(classes="seat-row"):
                        yield Select(list(kinds), value=kind, allow_blank=False, id=f"seat-kind-{i}", classes="seat-kind", compact=True)
                        yield Input(spec.name if spec else "", placeholder=default_seat_name("human", i + 1), id=f"seat-name-{i}",
                                    classes="seat-name", compact=True)
                        yield Input(
                            "" if spec is None or spec.strength is None else str(spec.strength),
                            placeholder="—",
                            type="number",
                            valid_empty=True,
                            id=f"seat-strength-{i}",
                            classes="seat-strength",
                            compact=True,
                        )
                    if self.seat_options:  # a line of their own: the seat's name keeps its width
                        with Horizontal(classes="seat-options"):
                            for option in self.seat_options:
                                yield Select(option.choices(), value=self._seat_choice(option, i), allow_blank=False,
                                             id=f"{option.widget}-{i}", classes=option.widget, compact=True)
                yield Static(id="setup-error")
                with Horizontal(id="setup-buttons"):
                    yield Button(_("Start"), variant="success", id="start")
                    if ui_of(self.setup.game).tutorial:
                        yield Button(_("Tutorial"), id="tutorial")
            with VerticalScroll(id="setup-rules"):
                if cls is None:
                    yield Static(self.model_error, id="model-error")
                else:
                    yield from self._rule_rows(cls, preset, help_texts)
        yield Footer()

    def _rule_rows(self, cls: type[Any], preset: str, help_texts: dict[str, str]) -> ComposeResult:
        try:
            current = cls.from_dict(self.setup.rules)
        except (RulesError, ValueError, TypeError):
            current = cls.from_dict({"preset": preset})
        hints = get_type_hints(cls)
        for f in dataclasses.fields(current):
            if f.name == "preset" or f.name in {o.name for o in self.seat_options}:
                continue  # chosen seat by seat
            value = getattr(current, f.name)
            help_text = help_texts.get(f.name, "")
            with Vertical(classes="rule-row"):
                with Horizontal(classes="rule-line"):
                    yield Label(self._label(f.name), classes="rule-name")
                    widget_id = f"rule-{f.name}"
                    if hints.get(f.name) is bool:
                        yield Switch(value=bool(value), id=widget_id, classes="rule-input")
                    else:
                        choices = option_choices(cls, f.name, help_text) if isinstance(value, str) else []
                        if value in choices:
                            yield Select(
                                [(value_label(c), c) for c in choices],
                                value=value,
                                allow_blank=False,
                                id=widget_id,
                                classes="rule-input",
                                compact=True,
                            )
                        else:
                            yield Input(show_value(value), placeholder=pgettext("rule input", "none"), id=widget_id, classes="rule-input",
                                        compact=True)
                yield Static(engine_text(help_text) if help_text else "", classes="field-help", markup=False)
        self.border_title = _("rules")

    def _label(self, name: str) -> str:
        """An option's label: the engine's name for it in the player's language. English keeps the
        words of the option's key, as the form always showed them."""
        labels = spec_of_game(self.setup.game).option_labels
        if current_language() == DEFAULT or name not in labels:
            return option_label(name)
        return engine_text(labels[name])

    def on_mount(self) -> None:
        self.query_one("#setup-rules").border_title = _("{game} rules").format(game=game_label(self.setup.game))
        self.validate()

    # -------------------------------------------------------------- reading

    def read_rules(self) -> dict[str, Any]:
        """The rules object the form describes: the preset and the options that differ from it."""
        cls, presets, _help = self._model()
        if cls is None:
            return {}
        preset = str(self.query_one("#preset", Select).value) if presets else "standard"
        base = options_to_dict(cls.from_dict({"preset": preset}))
        rules: dict[str, Any] = {"preset": preset}
        for name, default in base.items():
            if name == "preset":
                continue
            matches = self.query(f"#rule-{name}")
            if not matches:
                continue
            widget = matches.first()
            if isinstance(widget, Switch):
                value: Any = widget.value
            elif isinstance(widget, Select):
                value = widget.value
            elif isinstance(widget, Input):
                value = parse_value(widget.value)
            else:
                continue
            if value != default:
                rules[name] = value
        return rules

    @property
    def seat_options(self) -> tuple[SeatOption, ...]:
        """The rules options the chosen game asks seat by seat (the tower game's ``towers``)."""
        return ui_of(self.setup.game).seat_options

    def _seat_choice(self, option: SeatOption, seat: int) -> str:
        """What seat ``seat`` chose for ``option`` last time (the tower and end), else ``free``."""
        chosen_all = self.setup.rules.get(option.name) or []
        chosen = chosen_all[seat] if seat < len(chosen_all) else None
        return chosen if isinstance(chosen, str) and chosen in option.values() else option.free

    def read_seat_options(self) -> dict[str, list[str | None]]:
        """Each seat option's choices, one per seat in use (None: the engine decides); an option
        nobody chose is left out."""
        options: dict[str, list[str | None]] = {}
        for option in self.seat_options:
            chosen: list[str | None] = []
            for i in range(MAX_SEATS[self.setup.game]):
                if str(self.query_one(f"#seat-kind-{i}", Select).value) == NO_SEAT:
                    continue
                value = str(self.query_one(f"#{option.widget}-{i}", Select).value)
                chosen.append(None if value == option.free else value)
            if any(chosen):
                options[option.name] = chosen
        return options

    def read_seats(self) -> list[SeatSpec]:
        """The seats in use; ValueError naming the seat at fault."""
        seats: list[SeatSpec] = []
        for i in range(MAX_SEATS[self.setup.game]):
            kind = str(self.query_one(f"#seat-kind-{i}", Select).value)
            if kind == NO_SEAT:
                continue
            name = self.query_one(f"#seat-name-{i}", Input).value.strip()
            if not name:
                name = default_seat_name(kind, len(seats) + 1)
            strength_text = self.query_one(f"#seat-strength-{i}", Input).value.strip()
            strength = None
            if strength_text:
                try:
                    strength = float(strength_text)
                except ValueError:
                    raise ValueError(
                        _("seat {number}: strength {text!r} is not a number").format(number=i + 1, text=strength_text)
                    ) from None
            seats.append(SeatSpec(kind, name, strength))
        if not seats:
            raise ValueError(_("seats: the game needs at least one seat"))
        names = [s.name for s in seats]
        if len(set(names)) != len(names):
            raise ValueError(_("seats: two seats have the same name ({names})").format(names=", ".join(names)))
        return seats

    def read_setup(self) -> Setup:
        """The whole form as a Setup; ValueError/RulesError saying which field is wrong."""
        from pathlib import Path

        from tabletris.tui.setup import build_rules

        seed_text = self.query_one("#seed", Input).value.strip()
        try:
            seed = int(seed_text) if seed_text else None
        except ValueError:
            raise ValueError(_("seed: {text!r} is not an integer").format(text=seed_text)) from None
        save_text = self.query_one("#save", Input).value.strip()
        rules = {**self.read_rules(), **self.read_seat_options()}
        if self.model_error:
            raise RulesError(self.model_error)
        build_rules(self.setup.game, rules)
        return Setup(self.setup.game, self.read_seats(), rules, seed, Path(save_text) if save_text else None)

    def validate(self) -> Setup | None:
        error = self.query_one("#setup-error", Static)
        try:
            setup = self.read_setup()
        except (RulesError, ValueError) as e:
            error.update(Content("✘ " + engine_text(e)))
            self.query_one("#start", Button).disabled = True
            return None
        error.update("")
        self.query_one("#start", Button).disabled = False
        return setup

    # -------------------------------------------------------------- events

    @on(Select.Changed, "#game")
    async def game_changed(self, event: Select.Changed) -> None:
        if event.value == self.setup.game or event.value is Select.NULL:
            return
        self.setup.game = str(event.value)
        self.setup.rules = {"preset": "standard"}
        self.setup.seats = self.setup.seats[: MAX_SEATS[self.setup.game]]
        await self.recompose()
        self.on_mount()

    @on(Select.Changed, "#preset")
    async def preset_changed(self, event: Select.Changed) -> None:
        if event.value == self.setup.rules.get("preset", "standard"):
            return
        self.keep_seats()
        self.setup.rules = {"preset": str(event.value)}
        await self.recompose()
        self.on_mount()

    def keep_seats(self) -> None:
        with contextlib.suppress(ValueError):
            self.setup.seats = self.read_seats()

    @on(Select.Changed, ".seat-kind")
    def seat_kind_changed(self, event: Select.Changed) -> None:
        """A seat that still has a default name takes the new kind's ("Random 2" becomes "Expert 2"),
        in the language the form is shown in."""
        i = int(str(event.control.id).rsplit("-", 1)[1])
        name_input = self.query_one(f"#seat-name-{i}", Input)
        old = name_input.value.strip()
        defaults = {default_seat_name(k, n) for k in [*bot_names(), "human"] for n in range(1, 9)}
        if old in defaults and str(event.value) != NO_SEAT:
            name_input.value = default_seat_name(str(event.value), i + 1)

    @on(Input.Changed)
    @on(Switch.Changed)
    @on(Select.Changed)
    def changed(self) -> None:
        self.validate()

    @on(Button.Pressed, "#start")
    def start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#tutorial")
    def tutorial_pressed(self) -> None:
        self.action_tutorial()

    def action_tutorial(self) -> None:
        """The chosen game's guided first game (the app says so when it has none)."""
        start = getattr(self.app, "start_tutorial", None)
        if start is not None:
            start(self.setup.game)

    @on(Input.Submitted)
    def submitted(self) -> None:
        """Enter in a field goes on to the next one, as in any form; the game starts from the
        Start button, ctrl+s or F5 only (Enter in the seed field started it half filled in)."""
        self.focus_next()

    def action_start(self) -> None:
        setup = self.validate()
        if setup is None:
            return
        self.start_game(setup)

    def action_back(self) -> None:
        """Back to the game in progress, if this screen was opened over one."""
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
