package capture

// Stats is what a capture counted.
type Stats struct {
	// Packets is the number of packets written to the file, each GSO
	// segment counted as the packet it is on the wire.
	Packets uint64
	// Received is the number of packets the kernel passed to the capture
	// socket, including those it dropped (PACKET_STATISTICS tp_packets);
	// a GSO super-packet counts once.
	Received uint64
	// Dropped is the number of packets the kernel dropped because the
	// ring was full (tp_drops): the capture misses them. A GSO
	// super-packet counts once here too, so the wire packets missing from
	// the file may be up to 45 times as many.
	Dropped uint64
	// Split is the number of GSO super-packets written as segments.
	Split uint64
}
