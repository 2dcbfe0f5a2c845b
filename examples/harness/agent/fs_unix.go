//go:build unix

package agent

import (
	"errors"
	"syscall"
)

// openNonblock makes opening a FIFO return at once instead of waiting for its other end.
const openNonblock = syscall.O_NONBLOCK

// noPeer reports an open of a FIFO or device that has nothing on its other end.
func noPeer(err error) bool { return errors.Is(err, syscall.ENXIO) }
