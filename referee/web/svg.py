"""Rating plots as inline SVG (no script, no external resource)."""

from __future__ import annotations

import time
from html import escape
from typing import Callable

PALETTE = ("#1f6feb", "#d1242f", "#1a7f37", "#8250df", "#bf8700", "#0a7ea4", "#cf222e", "#57606a",
           "#e16f24", "#116329")


def utc_tick(lo: float, hi: float) -> Callable[[float], str]:
    """How a tick of a time axis from ``lo`` to ``hi`` (Unix seconds) is labelled, in UTC."""
    fmt = "%H:%M:%S" if hi - lo < 600 else "%H:%M" if hi - lo < 2 * 86400 else "%m-%d"
    return lambda v: time.strftime(fmt, time.gmtime(v))


def rating_plot(series: dict[str, list[tuple[float, float, float]]], band: bool = False,
                width: int = 620, height: int = 260, by_time: bool = False) -> str:
    """A line per bot of TrueSkill mu after each of its matches.

    ``series``: bot -> ``[(x, mu, sigma)]`` in the order ratings were
    applied; ``x`` is the match index, or with ``by_time`` the Unix time the
    match finished (axis in UTC). With ``band`` (one bot) the band
    mu ± 3·sigma is shaded and the rating mu − 3·sigma drawn dashed. Returns
    an ``<svg>`` element as text; O(points)."""
    pts = [(i, mu, sg) for s in series.values() for i, mu, sg in s]
    if not pts:
        return (f'<svg class="plot" width="{width}" height="60" role="img"><text x="12" y="34" '
                f'fill="#5f6b7a" font-size="13">no rated match yet</text></svg>')
    left, right, top, bottom = 44, 12 + (150 if not band and len(series) > 1 else 0), 12, 28
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
           f'viewBox="0 0 {width} {height}" role="img" font-size="11" font-family="sans-serif">']
    for k in range(5):  # horizontal grid and y labels
        v = lo + (hi - lo) * k / 4
        y = Y(v)
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e6e9ee"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#5f6b7a">{v:.1f}</text>')
    if by_time:
        label = utc_tick(x0, x1)
        ticks = [x0 + (x1 - x0) * k / 4 for k in range(5)] if x1 > x0 else [x0]
    else:
        label = str
        ticks = [x0 + round((x1 - x0) * k / max(1, min(5, x1 - x0))) for k in range(int(min(6, x1 - x0 + 1)))]
    for k, i in enumerate(ticks):  # the outer labels stay inside the plot
        anchor = "start" if k == 0 and len(ticks) > 1 else "end" if k == len(ticks) - 1 and k else "middle"
        out.append(f'<text x="{X(i):.1f}" y="{height - 10}" text-anchor="{anchor}" fill="#5f6b7a">{label(i)}</text>')
    for n, (bot, s) in enumerate(series.items()):
        if not s:
            continue
        color = PALETTE[n % len(PALETTE)]
        if band:
            upper = " ".join(f"{X(i):.1f},{Y(mu + 3 * sg):.1f}" for i, mu, sg in s)
            lower = " ".join(f"{X(i):.1f},{Y(mu - 3 * sg):.1f}" for i, mu, sg in reversed(s))
            out.append(f'<polygon points="{upper} {lower}" fill="{color}" fill-opacity="0.13" stroke="none"/>')
            cons = " ".join(f"{X(i):.1f},{Y(mu - 3 * sg):.1f}" for i, mu, sg in s)
            out.append(f'<polyline points="{cons}" fill="none" stroke="{color}" stroke-width="1.3" '
                       f'stroke-dasharray="5 4"/>')
        line = " ".join(f"{X(i):.1f},{Y(mu):.1f}" for i, mu, _ in s)
        out.append(f'<polyline class="mu" data-bot="{escape(bot)}" points="{line}" fill="none" stroke="{color}" '
                   f'stroke-width="2"/>')
        if len(s) == 1:
            i, mu, _ = s[0]
            out.append(f'<circle cx="{X(i):.1f}" cy="{Y(mu):.1f}" r="3" fill="{color}"/>')
        if not band and len(series) > 1:
            ly = top + 14 + 16 * n
            out.append(f'<line x1="{width - right + 12}" x2="{width - right + 30}" y1="{ly - 4}" y2="{ly - 4}" '
                       f'stroke="{color}" stroke-width="3"/>')
            out.append(f'<text x="{width - right + 36}" y="{ly}" fill="#1d2430">{escape(bot[:22])}</text>')
    axis = "finished (UTC)" if by_time else "match"
    out.append(f'<text x="{left}" y="{height - 1}" fill="#5f6b7a" font-size="10" class="x-axis">{axis}</text>')
    out.append("</svg>")
    return "".join(out)
