"""Compiled (numba) kernels behind :mod:`wargame.geo.los`; not public API.

Every function here works on plain arrays and floats. The model they implement is
documented in :mod:`wargame.geo.los` and ``docs/los.md``; in short, a sight line
from P to Q is tested at ``n - 1`` sample points ``t = i / n`` (``n = ceil(D /
step - 1e-6)``) and is blocked when, at any sample, the ground (bilinear on the DEM) or
the top of an obstacle (ground + obstacle height of the land-cover cell, unless
the sample lies in P's or Q's own hex) is *strictly* above the sight line::

    line(t) = zP_eye + (zQ_eye - zP_eye) * t - k * d * (D - d),   d = t * D

with ``k = curvature_coeff / (2 * earth_radius)``: the GDAL viewshed's
``z - curvature_coeff * d**2 / (2 R)`` correction written as the earth's bulge
under the chord. Each trace tests both directions at once (P observes Q, Q
observes P), which differ only in which end gets the eye height.

``_trace`` answers visible/blocked fast but *exactly* for that sampled model: it
first probes a few samples (a blocker anywhere decides), then marches over the
DEM's dual cells (the squares between four cell centres, inside which the bilinear
ground is one quadratic along the ray) and skips every cell where an upper bound
of ground + obstacle is provably below the sight line; only the samples of the
other cells are evaluated. ``_profile`` evaluates every sample with the same
``_top_at`` function, for explanations and charts; the tests check that both give
the same answer.
"""

from __future__ import annotations

import math
import os

# numba's OpenMP threads would otherwise spin after each parallel loop, taking the
# core from whatever else runs there (on a shared 2-core machine a 10 km viewshed
# took 10-16 ms on two spinning threads and 2.5 ms on two passive ones). A policy
# the user has set is kept; it only counts if set before OpenMP is loaded.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
from numba import njit, prange

# The march's coarse cells: blocks of _COARSE x _COARSE dual cells (``Us[2 + o]``).
_COARSE = 2

# A line of length D has n = ceil(D / step - _N_TOL) sample intervals: the
# tolerance (a millionth of a step) keeps the rounding in hex centres' coordinates
# from adding a sample when D is a whole number of steps (straight down a column
# of 150 m hexes, every 150 m is), so every pair of the same offset has the same n.
_N_TOL = 1e-6

# Margin (m) added to every upper bound so that rounding can never make a skipped
# sample a blocker; it only costs a few needless sample evaluations.
_EPS_M = 1e-6
COS30 = 0.8660254037844386


# Threads for the explicit prange loops only: numba would otherwise also split
# array creation (np.zeros...) into parallel loops, which parallel_chunksize then
# hands out a few elements at a time. numba takes such a dict of passes for
# ``parallel`` (``ParallelOptions``) but its type stubs say bool only, hence the
# ``type: ignore[call-overload]`` on the decorators that pass it.
_PRANGE_ONLY = {
    "comprehension": False,
    "reduction": False,
    "inplace_binop": False,
    "setitem": False,
    "numpy": False,
    "stencil": False,
    "fusion": False,
}


@njit(cache=True, nogil=True, inline="always")
def _n_steps(D, step):  # type: ignore[no-untyped-def]
    """The number of sample intervals of a line of length D (see _N_TOL)."""
    return math.ceil(D / step - _N_TOL)


@njit(cache=True, nogil=True, inline="always")
def _in_hex(x, y, hx, hy, inr):  # type: ignore[no-untyped-def]
    """Whether (x, y) lies in the flat-topped hex centred at (hx, hy)."""
    ax = abs(x - hx)
    ay = abs(y - hy)
    return (ay <= inr) & (COS30 * ax + 0.5 * ay <= inr)


@njit(cache=True, nogil=True, inline="always")
def _ground(z, zx0, zy0, zic, x, y):  # type: ignore[no-untyped-def]
    """Bilinear DEM value at (x, y), edges clamped (as ``raster.bilinear``)."""
    nr, nc = z.shape
    fr = (zy0 - y) * zic - 0.5
    fc = (x - zx0) * zic - 0.5
    fr = min(max(fr, 0.0), nr - 1.0)
    fc = min(max(fc, 0.0), nc - 1.0)
    r0 = max(min(int(fr), nr - 2), 0)
    c0 = max(min(int(fc), nc - 2), 0)
    tr = fr - r0
    tc = fc - c0
    a = np.float64(z[r0, c0])
    b = np.float64(z[r0, c0 + 1])
    c = np.float64(z[r0 + 1, c0])
    d = np.float64(z[r0 + 1, c0 + 1])
    top = a + (b - a) * tc
    bot = c + (d - c) * tc
    return top + (bot - top) * tr


@njit(cache=True, nogil=True, inline="always")
def _cover_code(cov, nval, cx0, cy0, cic, x, y):  # type: ignore[no-untyped-def]
    """Cover value of the cell containing (x, y), edges clamped.

    ``cov`` holds one byte per cell when ``nval`` (the size of the height table
    it indexes) is 256, else packed cells of 2 bits (``nval`` 4) or 4 bits (16),
    the first cell in the lowest bits; a packed row is padded with copies of its
    last cell, so clamping to the padded width reads the same value.
    """
    sh = 2 if nval == 4 else (1 if nval == 16 else 0)  # log2 cells per byte
    lnr = cov.shape[0]
    lnc = cov.shape[1] << sh
    rr = min(max(math.floor((cy0 - y) * cic), 0), lnr - 1)
    ci = min(max(math.floor((x - cx0) * cic), 0), lnc - 1)
    bits = 8 >> sh
    return (cov[rr, ci >> sh] >> ((ci & ((1 << sh) - 1)) * bits)) & (nval - 1)


@njit(cache=True, nogil=True, inline="always")
def _top_at(  # type: ignore[no-untyped-def]
    z,
    zx0,
    zy0,
    zic,
    cov,
    cx0,
    cy0,
    cic,
    oh,
    use_obst,
    inr,
    pcx,
    pcy,
    qcx,
    qcy,
    x,
    y,
    far,
):
    """Ground, or obstacle top outside both end hexes, at (x, y).

    ``far``: the caller knows (x, y) is farther from both hex centres than a hex's
    corners, so outside both hexes (the tests are skipped; same answer).
    """
    gz = _ground(z, zx0, zy0, zic, x, y)
    if use_obst:
        h = oh[_cover_code(cov, oh.size, cx0, cy0, cic, x, y)]
        if far:
            return gz + h
        # branch-free: which class a sample hits is close to random, and a
        # mispredicted branch costs more than both hex tests (h = 0 adds nothing)
        out = (not _in_hex(x, y, pcx, pcy, inr)) & (not _in_hex(x, y, qcx, qcy, inr))
        return gz + (h if out else 0.0)
    return gz


@njit(cache=True, nogil=True, inline="always")
def _blocks(  # type: ignore[no-untyped-def]
    z,
    zx0,
    zy0,
    zic,
    cov,
    cx0,
    cy0,
    cic,
    oh,
    use_obst,
    inr,
    pcx,
    pcy,
    qcx,
    qcy,
    px,
    py,
    dx,
    dy,
    D,
    t,
    kcurv,
    a1,
    b1,
    a2,
    b2,
    rc,
):
    """Whether the sample at ``t`` blocks line 1 and line 2: the model's test.

    The sample is ``P + t (dx, dy)``; the lines run from ``a`` at P to ``b`` at Q,
    less the earth's bulge. ``rc``: when P and Q are their hexes' centres, a
    hex's circumradius plus a margin (a sample farther than that from both ends is
    outside both hexes); else infinity. Written once here for the probes, the march
    and the table, so that all of them decide every sample the same way, bit for
    bit.
    """
    top = _top_at(
        z,
        zx0,
        zy0,
        zic,
        cov,
        cx0,
        cy0,
        cic,
        oh,
        use_obst,
        inr,
        pcx,
        pcy,
        qcx,
        qcy,
        px + dx * t,
        py + dy * t,
        (D * t > rc) & (D - D * t > rc),
    )
    d = D * t
    bulge = kcurv * d * (D - d)
    return top > a1 + (b1 - a1) * t - bulge, top > a2 + (b2 - a2) * t - bulge


@njit(cache=True, nogil=True, inline="always")
def _quad_max(Z, mi, ma, m0, n0, dm, dn, a, b, cd2, ts, te):  # type: ignore[no-untyped-def]
    """Max over t in [ts, te] of ground(t) - line_linear(t) + bulge(t).

    ``Z[mi:mi+2, ma:ma+2]`` are the four corners of the dual cell the ray crosses
    for these t (minor, major index order); ground(t) there is a quadratic.
    """
    za = np.float64(Z[mi, ma])
    zb = np.float64(Z[mi, ma + 1])
    zc = np.float64(Z[mi + 1, ma])
    zd = np.float64(Z[mi + 1, ma + 1])
    u0 = m0 - ma
    v0 = n0 - mi
    e = za - zb - zc + zd
    g0 = za + (zb - za) * u0 + (zc - za) * v0 + e * u0 * v0 - a
    g1 = (zb - za) * dm + (zc - za) * dn + e * (u0 * dn + v0 * dm) - (b - a - cd2)
    g2 = e * dm * dn - cd2
    m = max(g0 + g1 * ts + g2 * ts * ts, g0 + g1 * te + g2 * te * te)
    if g2 < 0.0:
        tv = -g1 / (2.0 * g2)
        if ts < tv < te:
            m = max(m, g0 + g1 * tv + g2 * tv * tv)
    return m


@njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]  # _table_row
def _march(  # type: ignore[no-untyped-def]
    z,
    zx0,
    zy0,
    zic,
    cov,
    cx0,
    cy0,
    cic,
    oh,
    use_obst,
    inr,
    Zs,
    Us,
    Os,
    px,
    py,
    pcx,
    pcy,
    qcx,
    qcy,
    dx,
    dy,
    D,
    n,
    inv,
    cd2,
    a1,
    b1,
    a2,
    b2,
    kcurv,
    bl1,
    bl2,
    rc,
):
    """Step 2 of ``_trace``: the exact march over the DEM's dual cells."""
    # one column (or row) slab of dual cells at a time
    maxb = cd2 * 0.25 + _EPS_M
    # between hex centres (rc finite), samples closer to an end than the hex's
    # inradius are inside its hex, where obstacles do not count
    rin = inr - _EPS_M if rc < np.inf else -1.0
    fr0 = (zy0 - py) * zic - 0.5
    fc0 = (px - zx0) * zic - 0.5
    dfr = -dy * zic
    dfc = dx * zic
    if abs(dfc) >= abs(dfr):
        o = 0
        m0 = fc0
        n0 = fr0
        dm = dfc
        dn = dfr
    else:
        o = 1
        m0 = fr0
        n0 = fc0
        dm = dfr
        dn = dfc
    Z = Zs[o]
    U = Us[o]
    UC = Us[2 + o]
    OB = Os[o]
    nmi, nma = U.shape
    sgn = 1 if dm > 0 else -1
    mc = math.floor(m0)
    invdm = 1.0 / dm
    nxt = 1
    cbk = mc // _COARSE - sgn  # the coarse column block last tested
    while nxt < n:
        cb = mc // _COARSE
        if cb != cbk:
            # entering a block of _COARSE columns: its coarse bound may clear
            # all of them at once (the samples there span at most two coarse
            # rows, as the line moves at most one row per column)
            cbk = cb
            bnd = (cb + 1) * _COARSE if sgn > 0 else cb * _COARSE
            t_out = min((bnd - m0) * invdm, 1.0)
            ihi = min(int(t_out * n), n - 1)
            if ihi >= nxt:
                ts = nxt * inv
                te = ihi * inv
                na = min(max(math.floor(n0 + dn * ts), 0), nmi - 1) // _COARSE
                nb = min(max(math.floor(n0 + dn * te), 0), nmi - 1) // _COARSE
                cc = min(max(cb, 0), (nma - 1) // _COARSE)
                u = max(UC[na, cc], UC[nb, cc])
                if (
                    bl1 or u <= min(a1 + (b1 - a1) * ts, a1 + (b1 - a1) * te) - maxb
                ) and (
                    bl2 or u <= min(a2 + (b2 - a2) * ts, a2 + (b2 - a2) * te) - maxb
                ):
                    nxt = ihi + 1
                    if t_out >= 1.0:
                        break
                    mc = (cb + 1) * _COARSE if sgn > 0 else cb * _COARSE - 1
                    continue
        bnd = mc + 1 if sgn > 0 else mc
        t_out = (bnd - m0) * invdm
        if t_out > 1.0:
            t_out = 1.0
        ihi = int(t_out * n)
        if ihi > n - 1:
            ihi = n - 1
        if ihi >= nxt:
            ts = nxt * inv
            te = ihi * inv
            na = math.floor(n0 + dn * ts)
            nb = math.floor(n0 + dn * te)
            nlo = min(na, nb)
            mcl = min(max(mc, 0), nma - 1)
            nlc = min(max(nlo, 0), nmi - 1)
            u = U[nlc, mcl]
            if na != nb:
                u = max(u, U[min(max(nlo + 1, 0), nmi - 1), mcl])
            need = False
            if not bl1 and u > min(a1 + (b1 - a1) * ts, a1 + (b1 - a1) * te) - maxb:
                need = True
            if (
                not need
                and not bl2
                and u > min(a2 + (b2 - a2) * ts, a2 + (b2 - a2) * te) - maxb
            ):
                need = True
            if need:
                # the samples in this slab lie in one dual cell, or in two when the
                # line crosses a row of cell centres between them (never more:
                # |dn| <= |dm|); each cell's exact bound is tried before its
                # samples are evaluated
                ncut = ihi  # last sample of the first cell
                if na != nb:
                    ncut = int((max(na, nb) - n0) / dn * n)
                    ncut = min(max(ncut, nxt - 1), ihi)
                for part in range(2 if na != nb else 1):
                    lo = nxt if part == 0 else ncut + 1
                    hi = ncut if part == 0 else ihi
                    if hi < lo:
                        continue
                    row = na if part == 0 else nb
                    tlo = lo * inv
                    thi = hi * inv
                    sample = True
                    if mcl == mc and 0 <= row < nmi:
                        ob = OB[row, mc] if use_obst else 0.0
                        if (D * thi <= rin) | (D - D * tlo <= rin):
                            ob = 0.0
                        sample = False
                        if (
                            not bl1
                            and _quad_max(
                                Z, row, mc, m0, n0, dm, dn, a1, b1, cd2, tlo, thi
                            )
                            + ob
                            > -_EPS_M
                        ):
                            sample = True
                        if (
                            not sample
                            and not bl2
                            and _quad_max(
                                Z, row, mc, m0, n0, dm, dn, a2, b2, cd2, tlo, thi
                            )
                            + ob
                            > -_EPS_M
                        ):
                            sample = True
                    if not sample:
                        continue
                    for i in range(lo, hi + 1):
                        t = i * inv
                        s1, s2 = _blocks(
                            z,
                            zx0,
                            zy0,
                            zic,
                            cov,
                            cx0,
                            cy0,
                            cic,
                            oh,
                            use_obst,
                            inr,
                            pcx,
                            pcy,
                            qcx,
                            qcy,
                            px,
                            py,
                            dx,
                            dy,
                            D,
                            t,
                            kcurv,
                            a1,
                            b1,
                            a2,
                            b2,
                            rc,
                        )
                        bl1 = bl1 or s1
                        bl2 = bl2 or s2
                        if bl1 and bl2:
                            return True, True
            nxt = ihi + 1
        if t_out >= 1.0:
            break
        mc += sgn
    return bl1, bl2


@njit(cache=True, nogil=True, inline="always")
def _trace(  # type: ignore[no-untyped-def]
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
    inr,
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
):
    """Blocked flags (P->Q, Q->P) of the sight line between P and Q.

    ``zp``/``zq`` are the grounds at P and Q from ``_ground`` (the caller's, so that
    the table can compute them once per hex).

    Line 1 has the eye (``h_obs`` above ground) at P and the target (``h_tgt``) at
    Q, line 2 the reverse. Exact for the sampled model (see module doc).
    """
    zic = 1.0 / zcell
    cic = 1.0 / ccell
    dx = qx - px
    dy = qy - py
    D = math.sqrt(dx * dx + dy * dy)
    n = _n_steps(D, step)
    if n < 2:
        return False, False
    a1 = zp + h_obs  # line 1: P observes Q
    b1 = zq + h_tgt
    a2 = zp + h_tgt  # line 2: Q observes P
    b2 = zq + h_obs
    bl1 = False
    bl2 = False
    inv = 1.0 / n
    cd2 = kcurv * D * D
    rc = np.inf  # P and Q need not be their hexes' centres
    # 1. probes: midpoint, quarters, eighths... (any blocker decides)
    den = 2
    while den <= nprobe:
        for num in range(1, den, 2):
            i = (n * num) // den
            if i < 1:
                continue
            t = i * inv
            s1, s2 = _blocks(
                z,
                zx0,
                zy0,
                zic,
                cov,
                cx0,
                cy0,
                cic,
                oh,
                use_obst,
                inr,
                pcx,
                pcy,
                qcx,
                qcy,
                px,
                py,
                dx,
                dy,
                D,
                t,
                kcurv,
                a1,
                b1,
                a2,
                b2,
                rc,
            )
            bl1 = bl1 or s1
            bl2 = bl2 or s2
            if bl1 and bl2:
                return True, True
        den *= 2
    # 2. march over the cells (a call: the inlined part above stays small)
    return _march(
        z,
        zx0,
        zy0,
        zic,
        cov,
        cx0,
        cy0,
        cic,
        oh,
        use_obst,
        inr,
        Zs,
        Us,
        Os,
        px,
        py,
        pcx,
        pcy,
        qcx,
        qcy,
        dx,
        dy,
        D,
        n,
        inv,
        cd2,
        a1,
        b1,
        a2,
        b2,
        kcurv,
        bl1,
        bl2,
        rc,
    )


@njit(cache=True, nogil=True)
def pairs_visible(  # type: ignore[no-untyped-def]
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
    inr,
    Zs,
    Us,
    Os,
    ax,
    ay,
    acx,
    acy,
    bx,
    by,
    bcx,
    bcy,
    h_obs,
    h_tgt,
    step,
    kcurv,
    nprobe,
):
    """Visibility a[k] -> b[k] for arrays of observers and targets (one thread)."""
    m = ax.size
    out = np.empty(m, np.bool_)
    zic = 1.0 / zcell
    for k in range(m):
        # canonical order (smaller x, then y, first) makes both directions of a
        # pair use bit-identical samples, so equal heights give symmetric answers
        fwd = ax[k] < bx[k] or (ax[k] == bx[k] and ay[k] <= by[k])
        if fwd:
            px, py, pcx, pcy = ax[k], ay[k], acx[k], acy[k]
            qx, qy, qcx, qcy = bx[k], by[k], bcx[k], bcy[k]
        else:
            px, py, pcx, pcy = bx[k], by[k], bcx[k], bcy[k]
            qx, qy, qcx, qcy = ax[k], ay[k], acx[k], acy[k]
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
            inr,
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
    return out


@njit(cache=True, nogil=True)
def profile(  # type: ignore[no-untyped-def]
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
    inr,
    px,
    py,
    pcx,
    pcy,
    qx,
    qy,
    qcx,
    qcy,
    hp1,
    hq1,
    hp2,
    hq2,
    step,
    kcurv,
):
    """Every sample of the P->Q sight line (endpoints included), for explanations.

    Returns ``t``, ground, top (ground or obstacle top), land-cover code, line 1,
    line 2 (arrays of n + 1 values); samples 1..n-1 are tested, as in ``_trace``.
    """
    zic = 1.0 / zcell
    cic = 1.0 / ccell
    dx = qx - px
    dy = qy - py
    D = math.sqrt(dx * dx + dy * dy)
    zp = _ground(z, zx0, zy0, zic, px, py)
    zq = _ground(z, zx0, zy0, zic, qx, qy)
    n = _n_steps(D, step)
    if n < 1:
        n = 1
    inv = 1.0 / n
    a1 = zp + hp1
    b1 = zq + hq1
    a2 = zp + hp2
    b2 = zq + hq2
    tt = np.empty(n + 1)
    ground = np.empty(n + 1)
    top = np.empty(n + 1)
    code = np.zeros(n + 1, np.uint8)
    line1 = np.empty(n + 1)
    line2 = np.empty(n + 1)
    for i in range(n + 1):
        t = i * inv
        x = px + dx * t
        y = py + dy * t
        d = D * t
        bulge = kcurv * d * (D - d)
        tt[i] = t
        ground[i] = _ground(z, zx0, zy0, zic, x, y)
        code[i] = _cover_code(cov, oh.size, cx0, cy0, cic, x, y)
        if 0 < i < n:
            top[i] = _top_at(
                z,
                zx0,
                zy0,
                zic,
                cov,
                cx0,
                cy0,
                cic,
                oh,
                use_obst,
                inr,
                pcx,
                pcy,
                qcx,
                qcy,
                x,
                y,
                False,
            )
            line1[i] = a1 + (b1 - a1) * t - bulge
            line2[i] = a2 + (b2 - a2) * t - bulge
        else:
            top[i] = ground[i]
            line1[i] = a1 if i == 0 else b1
            line2[i] = a2 if i == 0 else b2
    return tt, ground, top, code, line1, line2


# The table's probes near the ends: sample 10 (93-100 m out, just beyond the own
# hex) and n - 10. With obstacles on, woods or a town next to either hex block most
# low sight lines there; without obstacles they found few blockers (left out).
_NEAR_SAMPLE = 10


# ``_nrt`` is a real but private numba option, missing from its type stubs
@njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]
def _table_row(  # type: ignore[no-untyped-def]
    i,
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
    inr,
    Zs,
    Us,
    Os,
    cx,
    cy,
    zc,
    ncol,
    nrow,
    dq,
    dr,
    h_obs,
    h_tgt,
    step,
    kcurv,
    nprobe,
    fwd,
    bwd,
    NB,
    ksec,
    kpar,
    S_,
    F_,
    B_,
    C_,
):
    """Row ``i`` of the table: what ``_trace`` answers for every pair in range.

    Probes only ever find blockers and the march is exact, with the same sample
    test (``_blocks``), so the answers equal ``pairs_visible``'s bit for bit. Each
    probe runs over all the row's open pairs in one short loop before the next
    (few unpredictable branches), pairs blocked both ways leave after every probe,
    and with obstacles on the first probes are the samples next to both hexes.
    Before any probe, those two samples are tested against the lower bounds of
    ``near_bounds`` (``NB``; ``ksec``/``kpar`` from ``los._near_plan``): a bound
    above both sight lines proves the pair blocked both ways without reading the
    terrain.

    Compiled without reference counting (``_nrt=False``, as ``_march``): the
    atomic counts on arrays shared by both threads cost a few per cent. So the
    caller passes the scratch arrays: ``S_`` (5 x pairs, int64), ``F_`` (pairs x
    12, float64: each open pair's line), ``B_`` (uint8: bit 0 line 1 (P observes
    Q) blocked, bit 1 line 2) and ``C_`` (bool: i is P).
    """
    # the pairs run between hex centres: a sample farther than a hex's corners
    # from both is outside both hexes
    rc = inr / COS30 + _EPS_M
    col = i // nrow
    row = i % nrow
    q = col
    r = row - (col - (col & 1)) // 2
    zic = 1.0 / zcell
    cic = 1.0 / ccell
    nk = dq.size
    # the scratch arrays (see above), one entry per pair
    K_ = S_[0]  # offset index of each pair
    P_ = S_[1]  # its hexes in canonical order
    Q_ = S_[2]
    N_ = S_[3]  # samples
    L_ = S_[4]  # the pairs still open
    m = 0
    use_nb = NB.shape[0] > 1  # else no offset has a bound
    for k in range(nk):
        tq = q + dq[k]
        tr = r + dr[k]
        tcol = tq
        trow = tr + (tq - (tq & 1)) // 2
        if tcol < 0 or tcol >= ncol or trow < 0 or trow >= nrow:
            continue
        j = tcol * nrow + trow
        canon = cx[i] < cx[j] or (cx[i] == cx[j] and cy[i] <= cy[j])
        ip = i if canon else j
        iq = j if canon else i
        K_[m] = k
        C_[m] = canon
        P_[m] = ip
        Q_[m] = iq
        # 0. the samples next to i and to j against their rings' lower bounds
        # (branch-free: the outcome is close to random). Lines as seen from i:
        # ground at fraction s of the way to j, less the bulge, plus the heights;
        # kpar holds s, the bulge and the heights' share for this offset, valid
        # when the pair has the offset's orientation (and so its sample count).
        bb = np.uint8(0)
        if use_nb:  # the same for the whole table: a predictable branch
            zi = zc[i]
            dz = zc[j] - zi
            gi = zi + dz * kpar[k, 0] - kpar[k, 1]
            gj = zi + dz * kpar[k, 4] - kpar[k, 5]
            lbi = np.float64(NB[ksec[k, 0], i])
            lbj = np.float64(NB[ksec[k, 1], j])
            x1 = (lbi > gi + kpar[k, 2]) | (lbj > gj + kpar[k, 6])
            x2 = (lbi > gi + kpar[k, 3]) | (lbj > gj + kpar[k, 7])
            ok = canon == (ksec[k, 2] != 0)
            bb = np.uint8(ok & x1) | (np.uint8(ok & x2) << np.uint8(1))
        B_[m] = bb
        # a pair blocked both ways is done: its bits stay 0
        m += 1 if bb != 3 else 0
    # the open pairs' lines, once (as _trace sets them up), and those of at least
    # two samples (the others have nothing to test) in the list of open pairs
    live = 0
    for p in range(m):
        ip = P_[p]
        iq = Q_[p]
        px = cx[ip]
        py = cy[ip]
        F_[p, 0] = px
        F_[p, 1] = py
        F_[p, 2] = cx[iq]
        F_[p, 3] = cy[iq]
        dx = cx[iq] - px
        dy = cy[iq] - py
        F_[p, 4] = dx
        F_[p, 5] = dy
        D = math.sqrt(dx * dx + dy * dy)
        n = _n_steps(D, step)
        F_[p, 6] = D
        F_[p, 7] = 1.0 / n
        F_[p, 8] = zc[ip] + h_obs  # line 1: P observes Q
        F_[p, 9] = zc[iq] + h_tgt
        F_[p, 10] = zc[ip] + h_tgt  # line 2: Q observes P
        F_[p, 11] = zc[iq] + h_obs
        N_[p] = n
        L_[live] = p
        live += 1 if n >= 2 else 0
    # 1. probes: near both ends (obstacles on), then the midpoint, quarters... up
    # to 1 / nprobe
    lev = 0 if use_obst else 1
    while (1 << lev) <= nprobe and live > 0:
        # level 0: num 1 is the sample next to P, num 3 the one next to Q
        for num in range(1, 4 if lev == 0 else 1 << lev, 2):
            for u in range(live):
                p = L_[u]
                n = N_[p]
                if lev == 0:
                    ii = _NEAR_SAMPLE if num == 1 else n - _NEAR_SAMPLE
                else:
                    ii = (n * num) >> lev
                if ii < 1 or ii >= n:
                    continue
                f = F_[p]
                s1, s2 = _blocks(
                    z,
                    zx0,
                    zy0,
                    zic,
                    cov,
                    cx0,
                    cy0,
                    cic,
                    oh,
                    use_obst,
                    inr,
                    f[0],
                    f[1],
                    f[2],
                    f[3],
                    f[0],
                    f[1],
                    f[4],
                    f[5],
                    f[6],
                    ii * f[7],
                    kcurv,
                    f[8],
                    f[9],
                    f[10],
                    f[11],
                    rc,
                )
                f = (np.uint8(1) if s1 else np.uint8(0)) | (
                    np.uint8(2) if s2 else np.uint8(0)
                )
                B_[p] |= f
            # pairs blocked both ways are done
            w = 0
            for u in range(live):
                p = L_[u]
                L_[w] = p
                w += 1 if B_[p] != 3 else 0
            live = w
        lev += 1
    # 2. the exact march for the pairs still open
    for u in range(live):
        p = L_[u]
        f = F_[p]
        b1, b2 = _march(
            z,
            zx0,
            zy0,
            zic,
            cov,
            cx0,
            cy0,
            cic,
            oh,
            use_obst,
            inr,
            Zs,
            Us,
            Os,
            f[0],
            f[1],
            f[0],
            f[1],
            f[2],
            f[3],
            f[4],
            f[5],
            f[6],
            N_[p],
            f[7],
            kcurv * f[6] * f[6],
            f[8],
            f[9],
            f[10],
            f[11],
            kcurv,
            (B_[p] & 1) != 0,
            (B_[p] & 2) != 0,
            rc,
        )
        B_[p] = (1 if b1 else 0) | (2 if b2 else 0)
    for p in range(m):
        k = K_[p]
        b1 = (B_[p] & 1) != 0
        b2 = (B_[p] & 2) != 0
        canon = C_[p]
        if not (b1 if canon else b2):
            fwd[k >> 3] |= np.uint8(1 << (k & 7))
        if not (b2 if canon else b1):
            bwd[k >> 3] |= np.uint8(1 << (k & 7))


@njit(cache=True, parallel=dict(_PRANGE_ONLY))  # type: ignore[call-overload]
def table(  # type: ignore[no-untyped-def]
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
    inr,
    Zs,
    Us,
    Os,
    cx,
    cy,
    ncol,
    nrow,
    dq,
    dr,
    h_obs,
    h_tgt,
    step,
    kcurv,
    nprobe,
    order,
    NB,
    ksec,
    kpar,
):
    """Bit rows ``fwd[i]`` (i sees i + offset k) and ``bwd[i]`` (i + offset k sees i).

    ``dq``/``dr`` list one half of the axial offsets within range (the other half
    is the negatives); each unordered pair is traced once for both directions.
    ``NB``, ``ksec``, ``kpar``: the near-ring bounds and their plan per offset
    (``near_bounds``, ``los._near_plan``).
    """
    n = cx.size
    nbytes = (dq.size + 7) // 8
    fwd = np.zeros((n, nbytes), np.uint8)
    bwd = np.zeros((n, nbytes), np.uint8)
    # ground at every hex centre, once (the same _ground as for single pairs)
    zc = np.empty(n)
    zic = 1.0 / zcell
    for i in range(n):
        zc[i] = _ground(z, zx0, zy0, zic, cx[i], cy[i])
    nk = dq.size
    for kk in prange(order.size):
        i = order[kk]
        _table_row(
            i,
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
            inr,
            Zs,
            Us,
            Os,
            cx,
            cy,
            zc,
            ncol,
            nrow,
            dq,
            dr,
            h_obs,
            h_tgt,
            step,
            kcurv,
            nprobe,
            fwd[i],
            bwd[i],
            NB,
            ksec,
            kpar,
            np.empty((5, nk), np.int64),
            np.empty((nk, 12)),
            np.empty(nk, np.uint8),
            np.empty(nk, np.bool_),
        )
    return fwd, bwd


@njit(cache=True, parallel=dict(_PRANGE_ONLY))  # type: ignore[call-overload]
def cell_bounds(z, zx0, zy0, zcell, cov, cx0, cy0, ccell, oh, use_obst):  # type: ignore[no-untyped-def]
    """Upper bounds per dual cell: max ground + max obstacle, and the obstacle max.

    Dual cell ``(i, j)`` holds the points whose bilinear interpolation uses DEM
    cells ``(i..i+1, j..j+1)`` (edge cells also hold the clamped margins).
    """
    nr, nc = z.shape
    lnr, lnc = cov.shape
    ub = np.empty((nr - 1, nc - 1), np.float64)
    obm = np.zeros((nr - 1, nc - 1), np.float64)
    for i in prange(nr - 1):
        y_hi = zy0 - (i + 0.5) * zcell + _EPS_M
        y_lo = zy0 - (i + 1.5) * zcell - _EPS_M
        r_a = 0 if i == 0 else math.floor((cy0 - y_hi) / ccell)
        r_b = lnr - 1 if i == nr - 2 else math.floor((cy0 - y_lo) / ccell)
        r_a = min(max(r_a, 0), lnr - 1)
        r_b = min(max(r_b, 0), lnr - 1)
        for j in range(nc - 1):
            g = max(max(z[i, j], z[i, j + 1]), max(z[i + 1, j], z[i + 1, j + 1]))
            h = 0.0
            if use_obst:
                x_lo = zx0 + (j + 0.5) * zcell - _EPS_M
                x_hi = zx0 + (j + 1.5) * zcell + _EPS_M
                c_a = 0 if j == 0 else math.floor((x_lo - cx0) / ccell)
                c_b = lnc - 1 if j == nc - 2 else math.floor((x_hi - cx0) / ccell)
                c_a = min(max(c_a, 0), lnc - 1)
                c_b = min(max(c_b, 0), lnc - 1)
                for rr in range(r_a, r_b + 1):
                    for ci in range(c_a, c_b + 1):
                        v = oh[cov[rr, ci]]
                        if v > h:
                            h = v
            ub[i, j] = np.float64(g) + h + _EPS_M
            obm[i, j] = h
    return ub, obm


@njit(cache=True, parallel=dict(_PRANGE_ONLY))  # type: ignore[call-overload]
def near_bounds(z, zx0, zy0, zcell, cov, cx0, cy0, ccell, oh, cx, cy, boxes):  # type: ignore[no-untyped-def]
    """Lower bounds of the top (ground + obstacle) in boxes around each hex centre.

    ``boxes[s]`` is ``(x_lo, x_hi, y_lo, y_hi)`` relative to a hex centre: the
    bounding box of one sector of the ring where the table's first probes fall
    (``los._near_plan``). ``out[s, i]`` (sector-major: a row of the table reads
    one sector of many neighbouring hexes) is at most the top ``_top_at`` computes,
    with obstacles counted, at any point of that box around hex ``i``: the least
    DEM corner of the dual cells the box touches (bilinear never goes below its
    corners) plus the least obstacle height of the land-cover cells it touches,
    less a margin, rounded down to float32. A last column of -inf serves offsets
    that have no usable bound.
    """
    nr, nc = z.shape
    zic = 1.0 / zcell
    cic = 1.0 / ccell
    nval = oh.size
    sh = 2 if nval == 4 else (1 if nval == 16 else 0)  # as _cover_code
    lnr = cov.shape[0]
    lnc = cov.shape[1] << sh
    bits = 8 >> sh
    nsec = boxes.shape[0]
    out = np.empty((nsec + 1, cx.size), np.float32)
    for i in prange(cx.size):
        for s in range(nsec):
            xlo = cx[i] + boxes[s, 0]
            xhi = cx[i] + boxes[s, 1]
            ylo = cy[i] + boxes[s, 2]
            yhi = cy[i] + boxes[s, 3]
            # the dual cells _ground would use anywhere in the box (monotone)
            ra = max(
                min(int(min(max((zy0 - yhi) * zic - 0.5, 0.0), nr - 1.0)), nr - 2), 0
            )
            rb = max(
                min(int(min(max((zy0 - ylo) * zic - 0.5, 0.0), nr - 1.0)), nr - 2), 0
            )
            ca = max(
                min(int(min(max((xlo - zx0) * zic - 0.5, 0.0), nc - 1.0)), nc - 2), 0
            )
            cb = max(
                min(int(min(max((xhi - zx0) * zic - 0.5, 0.0), nc - 1.0)), nc - 2), 0
            )
            g = np.inf
            for r in range(ra, rb + 2):
                for c in range(ca, cb + 2):
                    g = min(g, np.float64(z[r, c]))
            # the cover cells _cover_code would read anywhere in the box
            rra = min(max(math.floor((cy0 - yhi) * cic), 0), lnr - 1)
            rrb = min(max(math.floor((cy0 - ylo) * cic), 0), lnr - 1)
            cia = min(max(math.floor((xlo - cx0) * cic), 0), lnc - 1)
            cib = min(max(math.floor((xhi - cx0) * cic), 0), lnc - 1)
            h = np.inf
            for rr in range(rra, rrb + 1):
                for ci in range(cia, cib + 1):
                    code = (cov[rr, ci >> sh] >> ((ci & ((1 << sh) - 1)) * bits)) & (
                        nval - 1
                    )
                    h = min(h, oh[code])
            v = g + h - 4.0 * _EPS_M
            f = np.float32(v)
            if np.float64(f) > v:
                f = np.nextafter(f, np.float32(-np.inf))
            out[s, i] = f
        out[nsec, i] = -np.inf
    return out


@njit(cache=True, parallel=dict(_PRANGE_ONLY))  # type: ignore[call-overload]
def pack_cover(cover, lut, bits):  # type: ignore[no-untyped-def]
    """``lut[cover]`` packed ``bits`` (2 or 4) to a cell, the first in the lowest
    bits; each row padded with copies of its last cell (see ``_cover_code``)."""
    nr, nc = cover.shape
    per = 8 // bits
    ncp = (nc + per - 1) // per
    out = np.empty((nr, ncp), np.uint8)
    for r in prange(nr):
        for cb in range(ncp):
            v = 0
            for k in range(per):
                v |= np.int64(lut[cover[r, min(cb * per + k, nc - 1)]]) << (k * bits)
            out[r, cb] = np.uint8(v)
    return out
