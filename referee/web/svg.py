"""Rating plots as inline SVG (no script, no external resource)."""

from __future__ import annotations

import math
import time
from html import escape
from typing import Callable

#: ten distinct line colours (Tableau 10, the classic set)
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
#: the second cue of lines beyond the palette: the 11th to 20th line dashed, the 21st to 30th dotted, ...
DASHES = ("", "7 4", "2 3", "9 3 2 3")
#: a time axis' tick steps in seconds: round minutes, hours and days
TIME_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
              2 * 86400, 7 * 86400, 14 * 86400, 28 * 86400)
#: the most characters of a bot's name shown in a chart's legend and the head-to-head's bot column
NAME_CHARS = 24


def short_name(name: str, most: int = NAME_CHARS) -> str:
    """``name`` as shown where room is short: whole if it has at most
    ``most`` characters (>= 3), else its start and its end around an
    ellipsis, ``most`` characters in all, the end kept at least as long as
    the start (bots named alike differ at the end: ``bot-v12``, ``-03``).
    Where it is shown shortened, the full name is in a tooltip."""
    if len(name) <= most:
        return name
    head = (most - 1) // 2
    return name[:head] + "…" + name[len(name) - (most - 1 - head):]


def line_style(n: int) -> tuple[str, str]:
    """The colour and the ``stroke-dasharray`` (``""``: solid) of the ``n``-th
    line of a chart (from 0): the first 10 lines solid in 10 distinct colours,
    the next ones the same colours with a dash pattern."""
    return PALETTE[n % len(PALETTE)], DASHES[n // len(PALETTE) % len(DASHES)]


def nice_step(span: float, most: int = 5) -> float:
    """The smallest round step (1, 2 or 5 × 10^k) that cuts ``span`` (> 0)
    into at most ``most`` parts."""
    step = 10.0 ** math.floor(math.log10(span / most))
    for m in (1, 2, 5, 10):
        if span / (m * step) <= most:
            return m * step
    return 10 * step


def ticks(lo: float, hi: float, step: float) -> list[float]:
    """The multiples of ``step`` from ``lo`` to ``hi`` (both included)."""
    first = math.ceil(lo / step - 1e-9)
    return [round(k * step, 9) for k in range(first, math.floor(hi / step + 1e-9) + 1)]


def utc_tick(step: float) -> Callable[[float], str]:
    """How a tick of a time axis every ``step`` seconds (Unix time) is labelled, in UTC."""
    fmt = "%H:%M:%S" if step < 60 else "%H:%M" if step < 86400 else "%m-%d"
    return lambda v: time.strftime(fmt, time.gmtime(v))


def rating_plot(series: dict[str, list[tuple[float, float, float]]], band: bool = False,
                width: int = 960, height: int = 320, by_time: bool = False) -> str:
    """A line per bot of TrueSkill mu after each of its matches.

    ``series``: bot -> ``[(x, mu, sigma)]`` in the order ratings were
    applied; ``x`` is the match index, or with ``by_time`` the Unix time the
    match finished (axis in UTC). With ``band`` (one bot) the band
    mu ± 3·sigma is shaded and the rating mu − 3·sigma drawn dashed. Lines
    are told apart by :func:`line_style`; both axes are labelled at round
    steps (:func:`nice_step`; a time axis at round minutes, hours or days),
    the x axis named under its labels. Each line and legend entry has the
    bot's full name as its ``<title>`` (a tooltip); the legend shows it
    through :func:`short_name`.

    The chart is drawn on a ``width`` x ``height`` (px) canvas and takes the
    width of its container, at most ``width`` px, its height scaled alike.
    Returns an ``<svg>`` element as text; O(points)."""
    pts = [(i, mu, sg) for s in series.values() for i, mu, sg in s]
    if not pts:
        return (f'<svg class="plot" width="{width}" height="60" style="width: 100%; max-width: {width}px" '
                f'role="img"><text x="12" y="34" '
                f'fill="#5f6b7a" font-size="13">no rated match yet</text></svg>')
    legend = not band and len(series) > 1
    left, right, top, bottom = 44, 12 + (190 if legend else 0), 12, 40
    xs = [p[0] for p in pts]
    x0, x1 = min(xs), max(xs)
    if band:
        lo = min(mu - 3 * sg for _, mu, sg in pts)
        hi = max(mu + 3 * sg for _, mu, sg in pts)
    else:
        lo = min(mu for _, mu, _ in pts)
        hi = max(mu for _, mu, _ in pts)
    if hi - lo < 1:
        lo, hi = lo - 0.5, hi + 0.5
    pad = (hi - lo) * 0.06
    lo, hi = lo - pad, hi + pad
    pw, ph = width - left - right, height - top - bottom

    def X(i: float) -> float:
        return left + (pw * (i - x0) / (x1 - x0) if x1 > x0 else pw / 2)

    def Y(v: float) -> float:
        return top + ph * (hi - v) / (hi - lo)

    out = [f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" style="width: 100%; height: auto; max-width: {width}px" role="img" '
           f'font-size="11" font-family="sans-serif">']
    y_step = nice_step(hi - lo)
    digits = max(0, -math.floor(math.log10(y_step) + 1e-9))
    for v in ticks(lo, hi, y_step):  # horizontal grid and y labels
        y = Y(v)
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e6e9ee"/>')
        out.append(f'<text class="y-tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#5f6b7a">'
                   f'{v:.{digits}f}</text>')
    if by_time:
        span = max(x1 - x0, 1)
        x_step = next((t for t in TIME_STEPS if span / t <= 5), nice_step(span / 86400) * 86400)
        label = utc_tick(x_step)
    else:
        x_step = max(1.0, nice_step(x1 - x0)) if x1 > x0 else 1.0
        label = "{:.0f}".format
    x_ticks = ticks(x0, x1, x_step) or [x0]
    for i in x_ticks:  # a label near the right end ends there (the margin may be narrow)
        anchor = "end" if X(i) > left + pw - 24 and X(i) > left else "middle"
        out.append(f'<text class="x-tick" x="{X(i):.1f}" y="{top + ph + 16}" text-anchor="{anchor}" '
                   f'fill="#5f6b7a">{label(i)}</text>')
    for n, (bot, s) in enumerate(series.items()):
        if not s:
            continue
        color, dash = line_style(n)
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        name = f"<title>{escape(bot)}</title>"
        if band:
            upper = " ".join(f"{X(i):.1f},{Y(mu + 3 * sg):.1f}" for i, mu, sg in s)
            lower = " ".join(f"{X(i):.1f},{Y(mu - 3 * sg):.1f}" for i, mu, sg in reversed(s))
            out.append(f'<polygon points="{upper} {lower}" fill="{color}" fill-opacity="0.13" stroke="none"/>')
            cons = " ".join(f"{X(i):.1f},{Y(mu - 3 * sg):.1f}" for i, mu, sg in s)
            out.append(f'<polyline points="{cons}" fill="none" stroke="{color}" stroke-width="1.3" '
                       f'stroke-dasharray="5 4"/>')
        line = " ".join(f"{X(i):.1f},{Y(mu):.1f}" for i, mu, _ in s)
        out.append(f'<polyline class="mu" data-bot="{escape(bot)}" points="{line}" fill="none" stroke="{color}" '
                   f'stroke-width="2"{dashed}>{name}</polyline>')
        if len(s) == 1:
            i, mu, _ = s[0]
            out.append(f'<circle cx="{X(i):.1f}" cy="{Y(mu):.1f}" r="3" fill="{color}">{name}</circle>')
        if legend:
            ly = top + 14 + 16 * n
            out.append(f'<g class="legend">{name}<line x1="{width - right + 12}" x2="{width - right + 30}" '
                       f'y1="{ly - 4}" y2="{ly - 4}" stroke="{color}" stroke-width="3"{dashed}/>'
                       f'<text x="{width - right + 36}" y="{ly}" fill="#1d2430">{escape(short_name(bot))}</text></g>')
    axis = "finished (UTC)" if by_time else "match"
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 6}" text-anchor="middle" fill="#5f6b7a" font-size="10" '
               f'class="x-axis">{axis}</text>')
    out.append("</svg>")
    return "".join(out)
