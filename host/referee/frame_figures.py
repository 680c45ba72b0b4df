"""What a finished frame's play made beside its score (host/referee/match_play.py
keeps the play): the ball accounting and each player's figures, as the
store keeps them (host/store/frame_records.py).

Visits.  A visit is one player's turn at the table: it starts with his
first stroke and ends with the stroke after which his break is 0 (nothing
potted, a foul, the frame over, a re-spotted black).  Its points are the
break he made; a stroke replayed after a ball fell from a pocket's edge
(R3.12.2) scores nothing and does not end the visit.  A re-rack ends it.

Shot time.  From the previous stroke's ``rest`` to this stroke's ``strike``,
on the device's clock.  A break-off has none (the rack lies between), and
neither has a stroke re-entered after an undo: the time the referee spent
correcting is not the player's.
"""

from __future__ import annotations

from baulk.firmware import names
from baulk.host.referee.match_play import RACKS_AGAIN, Call, FramePlay, Pot, Stroke
from baulk.host.store import FrameResult
from baulk.host.store.frame_records import (
    NO_POCKET,
    BallAccount,
    FrameRecord,
    PlayerFrame,
    PocketCount,
    source_name,
)

_WHITE = names.BALLS[-1]  # the cue ball
_ALL_COLOURS = len(names.COLOURS)
MAX_KEYED_LISTED = 200  # the account lists at most this many keyed pots (it counts them all)


def frame_record(play: FramePlay, result: FrameResult) -> FrameRecord:
    return FrameRecord(
        play.frame, frame_ms(play), ball_account(play), player_figures(play, result.winner)
    )


def frame_ms(play: FramePlay) -> int | None:
    """Break-off strike to the event that ended the frame (a re-rack inside
    counts: it is the frame's time at the table)."""
    start = next((a.strike_t for a in play.actions if isinstance(a, Stroke)), None)
    end = next((a.last_t for a in reversed(play.actions) if a.ended), None)
    if start is None or end is None or end < start:
        return None
    return end - start


def ball_account(play: FramePlay) -> BallAccount:
    acc = BallAccount(play.reds, 0, 0, 0, 0, 0, 0)
    pockets: dict[str, PocketCount] = {}

    def pocket(p: Pot) -> PocketCount:
        name = p.pocket or NO_POCKET
        count = pockets.get(name)
        if count is None:
            count = pockets[name] = PocketCount()
        return count

    def recorded(p: Pot, potted: bool) -> None:
        if potted:
            if p.by_sensor:
                pocket(p).sensor += 1
            else:
                # Keyed by hand: a ball its pocket's sensor did not see.
                pocket(p).keyed += 1
                if len(acc.keyed_pots) < MAX_KEYED_LISTED:
                    acc.keyed_pots.append(
                        {
                            "seq": p.seq,
                            "ball": p.ball,
                            "pocket": p.pocket,
                            "src": source_name(p.src),
                        }
                    )
        if p.ball != _WHITE:
            if p.by_sensor:
                acc.sensor += 1
            else:
                acc.keyed += 1

    end: tuple[int, int] | None = None
    for a in play.actions:
        if isinstance(a, Stroke):
            for p in a.pots:
                recorded(p, True)
            for p in a.offs:
                recorded(p, False)
            acc.respots += a.respotted
        else:
            acc.returned += a.returned
        if a.ended:
            end = a.end_inventory()
    for p in play.notes.fell:
        recorded(p, True)
        if p.ball != _WHITE:
            acc.returned += 1  # R3.12.1: it went back where it was
    for p in play.notes.undone:
        pocket(p).undone += 1
    for p in play.notes.refused:
        pocket(p).refused += 1
    # Without the event that ended it nothing is known to be down: the
    # account then does not balance, which is what it should say.
    reds_end, colours_end = end if end is not None else (play.reds, _ALL_COLOURS)
    acc.reds_down = play.reds - reds_end
    acc.colours_down = _ALL_COLOURS - colours_end
    acc.pockets = dict(sorted(pockets.items()))
    return acc


def player_figures(play: FramePlay, winner: int) -> list[PlayerFrame]:
    figures = {
        (side, member): PlayerFrame(side, member, name, side == winner)
        for side, member, name in play.players
    }
    visitor: PlayerFrame | None = None
    points = 0

    def end_visit() -> None:
        nonlocal visitor
        if visitor is not None:
            visitor.visits += 1
            visitor.visit_points += points
            visitor.breaks.append(points)
        visitor = None

    for a in play.actions:
        if isinstance(a, Call):
            if a.name in RACKS_AGAIN:
                end_visit()
            continue
        player = figures.get((a.side, a.member))
        if player is None:
            continue  # (a stroke by nobody in the match: cannot happen)
        player.strokes += 1
        if a.shot_ms is not None:
            player.shots_ms.append(a.shot_ms)
        if a.foul is not None:
            side, member, kind, penalty = a.foul
            offender = figures.get((side, member), player)
            count = offender.fouls.setdefault(kind, [0, 0])
            count[0] += 1
            count[1] += penalty
        if visitor is not player:
            end_visit()
            visitor, points = player, 0
        if a.voided:
            continue  # replayed (R3.12.2): its points were taken back, the visit goes on
        points += a.points
        if a.brk_after == 0:
            end_visit()
    end_visit()
    return list(figures.values())
