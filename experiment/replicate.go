package experiment

// ReplicateSeed returns the seed every cell of replicate plays under in
// a run seeded with seed, as Planned assigns it. The study runner seeds
// its rounds with it, so that a study's rounds and an experiment's cells
// under one seed are the same matches.
func ReplicateSeed(seed uint64, replicate int) uint64 { return cellSeed(seed, replicate) }
