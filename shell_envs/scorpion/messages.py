"""Why an action is rejected, in English and Hungarian, keyed by the rule engine's check codes.

The one table of check codes and their messages, and the one way to find a code and word it
([`refusal`][]), for the single env, the batched env and the GPU env alike.  The two
messages of the original app are reproduced exactly: „Üres oszlopra csak király kerülhet”
and „Szabály: a lapoknak azonos színűnek kell lenniük”.
"""

from __future__ import annotations

import numpy as np

from shell_envs.core.validation import shown
from shell_envs.scorpion import rules
from shell_envs.scorpion.actions import RESERVE_ACTION, decode_move_plain
from shell_envs.scorpion.cards import card_code, card_name

LANGS = ("en", "hu")
# check codes whose message names no card or column (so do those of the reserve deal and undo)
WHOLE_GAME_CODES = frozenset(
    (rules.E_OUT_OF_RANGE, rules.E_GAME_OVER, rules.E_NO_MOVES, rules.E_RESERVE_DEALT)
)

MESSAGES: dict[str, dict[int, str]] = {
    "en": {
        rules.E_OUT_OF_RANGE: "Action {action} is out of range: actions are 0–{last}",
        rules.E_GAME_OVER: "The game is over: all four sequences have been removed",
        rules.E_NO_MOVES: "The game is over: no legal move is left",
        rules.E_CARD_HIDDEN: "{card} is not face up: it is face down or in the reserve",
        rules.E_CARD_REMOVED: "{card} has already been removed with its sequence",
        rules.E_SAME_COLUMN: "{card} is already in column {column}",
        rules.E_ON_ACE: "Nothing can be placed on an ace",
        rules.E_EMPTY_NEEDS_KING: "Only a king can be placed on an empty column",
        rules.E_WRONG_RANK: (
            "{card} is not one rank lower than {top}, the top card of column {column}"
        ),
        rules.E_SAME_SUIT: "Rule: the cards must be of the same suit",
        rules.E_RESERVE_DEALT: "The reserve has already been dealt: it can be dealt only once",
        rules.E_NOTHING_TO_UNDO: "There is no move to undo",
        rules.E_UNDO_LIMIT: "Nothing more to undo: only the last 100 moves can be undone",
    },
    "hu": {
        rules.E_OUT_OF_RANGE: "Érvénytelen lépés ({action}): a lépések 0 és {last} közöttiek",
        rules.E_GAME_OVER: "A játszma véget ért: mind a 4 sor kikerült a játékból",
        rules.E_NO_MOVES: "A játszma véget ért: nincs több szabályos lépés",
        rules.E_CARD_HIDDEN: "{card} nem látható lap: le van fordítva vagy a tartalékban van",
        rules.E_CARD_REMOVED: "{card} már kikerült a játékból egy teljes sorral",
        rules.E_SAME_COLUMN: "{card} már {the_column}. oszlopban van",
        rules.E_ON_ACE: "Ászra semmi sem helyezhető",
        rules.E_EMPTY_NEEDS_KING: "Üres oszlopra csak király kerülhet",
        rules.E_WRONG_RANK: (
            "{card} nem pontosan eggyel kisebb értékű, "
            "mint {the_column}. oszlop legfelső lapja ({top})"
        ),
        rules.E_SAME_SUIT: "Szabály: a lapoknak azonos színűnek kell lenniük",
        rules.E_RESERVE_DEALT: "A tartalék csak egyszer osztható ki, és már kiosztottuk",
        rules.E_NOTHING_TO_UNDO: "Nincs visszavonható lépés",
        rules.E_UNDO_LIMIT: (
            "Nincs több visszavonható lépés: csak az utolsó 100 lépés vonható vissza"
        ),
    },
}

# Traditional's won game: nothing was removed, the four runs stand in the tableau
WON_IN_TABLEAU = {
    "en": "The game is over: all four runs stand complete in the tableau",
    "hu": "A játszma véget ért: mind a 4 sor teljes az asztalon",
}


def message(
    code: int,
    lang: str = "en",
    *,
    action: object = None,
    last: int = rules.N_ACTIONS - 1,
    card: int | None = None,
    column: int | None = None,
    top: int | None = None,
) -> str:
    """The one-line reason for check ``code``; ``card``/``top`` are indices, ``column`` is 1–7."""
    text = MESSAGES[lang][code].format(
        action=shown(action) if isinstance(action, (int, np.integer)) else action,
        last=last,
        card=card_name(card, lang) if card is not None else "",
        top=card_name(top, lang) if top is not None else "",
        column=column,
        the_column=f"{hungarian_article(column)} {column}" if column is not None else "",
    )
    return text[:1].upper() + text[1:]


def refusal_code(
    arrays: rules.StateArrays, a: int, n_actions: int, allow_undo: bool, n_legal: int
) -> int:
    """The check code of action index ``a`` in the game of ``arrays`` (0: legal), as every env
    form gives it: out of range first, then a game that has ended (``n_legal`` legal actions,
    0 once it is won or stuck), then the rules' own check
    (`shell_envs.scorpion.rules.check_action`)."""
    if not 0 <= a < n_actions:
        return rules.E_OUT_OF_RANGE
    if n_legal == 0:
        return rules.E_GAME_OVER if rules.is_won(arrays[4]) else rules.E_NO_MOVES
    return int(rules.check_action(arrays, a, allow_undo))


def refusal_text(
    code: int, arrays: rules.StateArrays, action: object, a: int, lang: str, n_actions: int
) -> str:
    """The message of check ``code`` for ``action`` (index ``a``) in the game of ``arrays``,
    with the card it moves and the destination column's top card where the code needs them."""
    if code == rules.E_GAME_OVER and int(arrays[4][rules.M_RULES]) == rules.TRADITIONAL:
        return WON_IN_TABLEAU[lang]
    if code in WHOLE_GAME_CODES or a >= RESERVE_ACTION:
        return message(code, lang, action=action, last=n_actions - 1)
    card, dest = decode_move_plain(a)
    tab, lens = arrays[0], arrays[1]
    n = int(lens[dest])
    top = int(tab[dest, n - 1]) if n else None
    return message(code, lang, action=action, card=card, column=dest + 1, top=top)


def refusal(
    arrays: rules.StateArrays,
    action: object,
    a: int,
    n_actions: int,
    allow_undo: bool,
    n_legal: int,
    lang: str = "en",
) -> str | None:
    """Why ``action`` (index ``a``) is refused in the game of ``arrays``, or None when it is
    legal: [`refusal_code`][] worded by [`refusal_text`][]."""
    code = refusal_code(arrays, a, n_actions, allow_undo, n_legal)
    return refusal_text(code, arrays, action, a, lang, n_actions) if code else None


def hungarian_article(number: int) -> str:
    """The Hungarian definite article before ``number`` written in digits: ``"az"`` or ``"a"``.

    Hungarian takes ``az`` before a vowel sound, and the article goes by how the number is
    read: 1 (egy), 5 (öt), 50 (ötven), 1000 (ezer) … start with a vowel, 10 (tíz) does not.
    """
    digits = str(abs(int(number)))
    if digits[0] == "5":
        return "az"
    if digits[0] == "1":  # egy, egyezer, egymillió …; but tíz, tizen-, száz, százezer …
        return "az" if len(digits) in (1, 4, 7, 10) else "a"
    return "a"


def action_text(action: int) -> str:
    """A Scorpion action as ``shell-envs play scorpion`` takes it: ``"4H 7"`` or ``"d"``.

    ``"4H 7"`` moves 4H (and every card above it) onto column 7; ``"d"`` deals the reserve.
    The solver, the hints and the examples all print moves this way, so any printed move
    can be typed back as it is.
    """
    if action == RESERVE_ACTION:
        return "d"
    card, dest = decode_move_plain(int(action))
    return f"{card_code(card)} {dest + 1}"
