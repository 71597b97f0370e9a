"""Compiled (numba) kernels for line of sight between free points; not public API.

The sight-line test is the hex kernels' own (``_los_kernels._trace``, exact for
the sampled model); only the *exempt zones* around the two ends differ. The hex
kernels skip obstacles inside a flat-topped hexagon of inradius ``inr`` around a
centre per end. For points (:mod:`wargame.geo.los_points`) every pair gets its
own centres, so that the exempt part of the sight line is exactly its first and
last ``margin`` metres, whatever the bearing:

* the hexagon has inradius ``r = margin``; a ray from its centre along the unit
  vector ``u`` leaves it at ``e = r / g(u)``, ``g = max(|uy|, cos30 |ux| +
  |uy| / 2)`` (the support function of the hexagon's edges, ``g`` in [0.866, 1]);
* the centre is moved back from the end by ``s = e - r`` along the line (away
  from the other end), so the sight line leaves the zone ``r`` metres from the
  end. A convex zone holding the end: the samples within ``margin`` of it are
  exempt, no others (a disc of radius ``margin`` would exempt the same samples);
* an end whose own terrain counts (``standing_in``) gets a centre far away
  (:data:`FAR`): nothing near it is exempt.

The same inline function computes the centres for one pair (explanations,
``centres``) and inside :func:`grid_visible`, so both answer bit for bit alike.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from wargame.geo._los_kernels import _PRANGE_ONLY, COS30, _ground, _trace

# The centre of an end without an exempt zone: no sample is within a margin of it.
FAR = 1e15


@njit(cache=True, nogil=True, inline="always")
def _centres(ax, ay, bx, by, r, stand_a, stand_b):  # type: ignore[no-untyped-def]
    """Exempt-zone centres ``(acx, acy, bcx, bcy)`` of the pair a -> b."""
    dx = bx - ax
    dy = by - ay
    D = math.sqrt(dx * dx + dy * dy)
    if D > 0.0:
        ux = dx / D
        uy = dy / D
    else:
        ux = 1.0
        uy = 0.0
    g = max(abs(uy), COS30 * abs(ux) + 0.5 * abs(uy))
    s = r / g - r
    if stand_a:
        acx = FAR
        acy = FAR
    else:
        acx = ax - s * ux
        acy = ay - s * uy
    if stand_b:
        bcx = FAR
        bcy = FAR
    else:
        bcx = bx + s * ux
        bcy = by + s * uy
    return acx, acy, bcx, bcy


@njit(cache=True, nogil=True)
def centres(ax, ay, bx, by, r, stand_a, stand_b):  # type: ignore[no-untyped-def]
    """:func:`_centres` for arrays of pairs (the single-pair path uses it)."""
    n = ax.size
    out = np.empty((4, n))
    for k in range(n):
        c = _centres(ax[k], ay[k], bx[k], by[k], r, stand_a, stand_b)
        out[0, k] = c[0]
        out[1, k] = c[1]
        out[2, k] = c[2]
        out[3, k] = c[3]
    return out


@njit(cache=True, parallel=dict(_PRANGE_ONLY))  # type: ignore[call-overload]
def grid_visible(  # type: ignore[no-untyped-def]
    z,
    zx0,
    zy0,
    zcell,
    cov,
    cx0,
    cy0,
    ccell,
    oh,
    use_obst,
    r,
    Zs,
    Us,
    Os,
    ax,
    ay,
    bx,
    by,
    h_obs,
    h_tgt,
    step,
    kcurv,
    nprobe,
    max_range,
    stand_a,
    stand_b,
):
    """``out[i, j]``: a[i] sees b[j] (all pairs, in parallel over the pairs).

    Pairs farther apart than ``max_range`` are not traced (False). Otherwise the
    same as ``_los_kernels.pairs_visible`` with the per-pair centres of
    :func:`_centres`: the canonical order of the ends, the grounds, the trace.
    """
    n = ax.size
    m = bx.size
    out = np.zeros(n * m, np.bool_)
    zic = 1.0 / zcell
    for k in prange(n * m):
        i = k // m
        j = k - i * m
        a_x = ax[i]
        a_y = ay[i]
        b_x = bx[j]
        b_y = by[j]
        ddx = b_x - a_x
        ddy = b_y - a_y
        if ddx * ddx + ddy * ddy > max_range * max_range:
            continue
        acx, acy, bcx, bcy = _centres(a_x, a_y, b_x, b_y, r, stand_a, stand_b)
        fwd = a_x < b_x or (a_x == b_x and a_y <= b_y)
        if fwd:
            px, py, pcx, pcy = a_x, a_y, acx, acy
            qx, qy, qcx, qcy = b_x, b_y, bcx, bcy
        else:
            px, py, pcx, pcy = b_x, b_y, bcx, bcy
            qx, qy, qcx, qcy = a_x, a_y, acx, acy
        zp = _ground(z, zx0, zy0, zic, px, py)
        zq = _ground(z, zx0, zy0, zic, qx, qy)
        b1, b2 = _trace(
            z,
            zx0,
            zy0,
            zcell,
            cov,
            cx0,
            cy0,
            ccell,
            oh,
            use_obst,
            r,
            Zs,
            Us,
            Os,
            px,
            py,
            pcx,
            pcy,
            qx,
            qy,
            qcx,
            qcy,
            zp,
            zq,
            h_obs,
            h_tgt,
            step,
            kcurv,
            nprobe,
        )
        out[k] = not (b1 if fwd else b2)
    return out.reshape(n, m)
