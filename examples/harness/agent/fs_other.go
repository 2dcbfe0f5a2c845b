//go:build !unix

package agent

// openNonblock is zero where FIFOs cannot appear in a directory tree.
const openNonblock = 0

func noPeer(error) bool { return false }
