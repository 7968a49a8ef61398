// Package nav lets lagkit's bots find their way round a map: a walkable grid
// derived from the map's boxes, a reachability check for map files, A* paths
// straightened into a few waypoints, and a query for spots in cover.
//
// # The grid
//
// Build samples the map on square cells (0.5 m by default) over its bounds.
// Each cell is a column that can hold several floors: the ground (z = 0)
// and the tops of the boxes over the cell's centre, each one that is not
// buried in another box and where the player's movement capsule fits with
// its feet on the floor at the centre. Boxes whose top is at most a step
// above the floor do not count against the fit, because a walking player
// climbs onto them (game.Move steps up ledges of up to Params.StepHeight).
// A floor where only the crouched capsule fits is walkable too, and
// NeedsCrouch reports it. Sampling at cell centres finds every gap at
// least 2*Radius plus one cell wide (1.3 m by default), wherever it lies
// on the grid; a narrower gap that still fits a player may be missed. This
// is the heightfield of Recast (Mononen, recastnavigation: walkable spans
// with a climb height) in its simplest form: each floor a single cell, no
// regions and no polygons.
//
// # Edges
//
// A floor links to each of the 8 neighbouring columns, to the highest floor
// there that is at most a step up: so one floor's neighbour in a direction
// is where a player walking that way ends up, whether on a stair, on level
// ground or after dropping off a ledge of any height. Drops are one-way
// edges, since no walk leads back up. The capsule must also fit over both
// cells at the higher of the two floors, so no edge passes under a low
// ceiling or through a wall. A diagonal edge also needs both orthogonal
// detours to link the same two floors, so paths do not cut the corners of
// boxes. Below a platform's edge the cells within a player's radius of its
// wall have no floor, since the capsule does not fit there; a player
// walking off the edge falls past them and lands beyond, so an orthogonal
// edge passes over such cells when the capsule fits above them. Jumps are
// not edges: a box a jump would reach is not linked unless a walk reaches
// it too.
//
// Build keeps only the floors a player can walk to from some spawn for
// Snap, Random, Cover and paths; Check tests reachability from each spawn.
//
// # Paths
//
// A Finder runs A* (Hart, Nilsson and Raphael 1968) over the edges, with
// the octile distance as its heuristic, which is exact on an empty 8-way
// grid and so never overestimates; ties go to the floor nearer the goal
// and then to the lower index, so paths are deterministic. The cell path
// is then straightened by string pulling: from each kept waypoint it skips
// ahead to the farthest later one that a straight walk reaches, where the
// walk stays on the same floor level in every cell it crosses and the
// capsule swept along it clears every box it cannot step onto. Steps and
// drops keep their cell waypoints, so a bot following a path walks
// straight lines between them.
//
// # Cover
//
// Build lists the floors within one cell of a box that rises at least
// 0.9 m above them, which hides most of a crouching player's body (1.2 m).
// Cover tests those near the bot for line of sight from the threat's eye
// with the map's broad phase: a spot is cover when the segment to the eye
// of a player standing there meets a box, or low cover when only the
// segment to a crouching player's eye does. Looking only at the list keeps
// a query to a few tens of microseconds.
//
// A Grid is read-only after Build and safe for concurrent use, so any
// number of bots in any number of matches can share one; each bot needs its
// own Finder.
package nav
