//go:build unix

package sqlstore

import "syscall"

// nonBlock makes an open of a FIFO return at once instead of waiting for its other end.
const nonBlock = syscall.O_NONBLOCK
