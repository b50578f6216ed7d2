package fidelity

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

func unsafePtr(ts *unix.Timespec) unsafe.Pointer { return unsafe.Pointer(ts) }
