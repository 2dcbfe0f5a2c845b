//go:build !unix

package sqlstore

// nonBlock is zero where there are no FIFOs to wait on.
const nonBlock = 0
