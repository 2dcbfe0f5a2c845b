package toolset

// Engines returns the number of engines t's sandbox holds (one per session with a mount).
func Engines(t *Toolset) int { return t.loop.Engines() }
