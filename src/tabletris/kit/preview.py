"""PNG previews of the kit, rendered headless with matplotlib's 3D axes (the Agg backend).

matplotlib is already a dependency and needs no GPU, display or OpenGL, so the pictures render
the same on a laptop and in CI. Faces are shaded by a fixed light (Lambert) so depth reads well
without a real renderer; meshes are a few thousand triangles, which matplotlib draws in well under
a second per picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import trimesh
from manifold3d import Manifold
from matplotlib.colors import to_rgb
from mpl_toolkits.mplot3d.art3d import Poly3DCollection

from tabletris.kit.parts import mesh_arrays

Shaded = tuple[np.ndarray, np.ndarray, str]
"""A mesh to draw: vertices, triangles and a colour."""

LIGHT = np.array([0.35, -0.55, 0.76])


def _eye(elev: float, azim: float) -> np.ndarray:
    e, a = np.radians(elev), np.radians(azim)
    return np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])


def _shade(
    verts: np.ndarray, faces: np.ndarray, colour: str, eye: np.ndarray, max_edge: float
) -> tuple[np.ndarray, np.ndarray]:
    """Front faces only (matplotlib sorts whole polygons, so back faces would show through),
    cut into small triangles so that its per-polygon depth order holds."""
    verts, faces = trimesh.remesh.subdivide_to_size(verts, faces, max_edge=max_edge, max_iter=12)
    tris = verts[faces]
    normals = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    lengths = np.linalg.norm(normals, axis=1)
    keep = lengths > 1e-12
    normals[keep] /= lengths[keep, None]
    keep &= normals @ eye > 1e-6
    tris, normals = tris[keep], normals[keep]
    light = LIGHT / np.linalg.norm(LIGHT)
    intensity = 0.45 + 0.55 * np.clip(normals @ light, 0.0, 1.0)
    rgb = np.asarray(to_rgb(colour))
    return tris, np.clip(rgb[None, :] * intensity[:, None], 0.0, 1.0)


def render(
    meshes: Sequence[Shaded],
    path: Path,
    title: str = "",
    elev: float = 35.0,
    azim: float = -60.0,
    size: tuple[float, float] = (6.0, 5.0),
) -> Path:
    """Draw ``meshes`` into one PNG at ``path``; axes hidden, scale true in all three axes."""
    fig = plt.figure(figsize=size, dpi=110)
    ax = fig.add_subplot(projection="3d")
    lows, highs, all_tris, all_colours = [], [], [], []
    eye = _eye(elev, azim)
    extent = max(float(np.ptp(v, axis=0).max()) for v, _, _ in meshes)
    for verts, faces, colour in meshes:
        tris, colours = _shade(verts, faces, colour, eye, extent / 30.0)
        all_tris.append(tris)
        all_colours.append(colours)
        lows.append(verts.min(axis=0))
        highs.append(verts.max(axis=0))
    # One collection: matplotlib orders polygons by depth within a collection, but whole
    # collections against each other, which would draw the board over the pieces on it.
    tris, colours = np.concatenate(all_tris), np.concatenate(all_colours)
    ax.add_collection3d(Poly3DCollection(tris, facecolors=colours, edgecolors=colours, linewidths=0.6))
    lo, hi = np.min(lows, axis=0), np.max(highs, axis=0)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_zlim(lo[2], hi[2])
    ax.set_box_aspect(tuple(float(v) for v in np.maximum(hi - lo, 1e-3)))
    ax.view_init(elev=elev, azim=azim)
    ax.set_proj_type("ortho")
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    fig.subplots_adjust(left=0, right=1, bottom=0, top=0.93 if title else 1)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def shaded(solid: Manifold, colour: str) -> Shaded:
    """A manifold solid as a mesh to draw."""
    verts, faces = mesh_arrays(solid)
    return verts, faces, colour
