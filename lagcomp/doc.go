// Package lagcomp is lagkit's server-side lag compensation: the per-player
// pose history that hit registration rewinds into. Rewinding is a query
// against recorded poses, never a mutation of live state ([source]).
package lagcomp
