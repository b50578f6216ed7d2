package pdcp

// RxCounters are the receive side's counters. Every PDU handed to Receive
// ends up in exactly one of Delivered (eventually, unless still buffered),
// DuplicatesDiscarded or OldDiscarded.
type RxCounters struct {
	// Received counts PDUs handed to Receive.
	Received uint64
	// Delivered counts SDUs handed up, = InOrder + OnExpiry + OnFlush.
	Delivered uint64
	// DeliveredInOrder counts SDUs delivered when every COUNT before them had
	// been delivered (on arrival, or when a hole before them was filled).
	DeliveredInOrder uint64
	// DeliveredOnExpiry counts SDUs delivered by a t-Reordering expiry, past
	// holes given up.
	DeliveredOnExpiry uint64
	// DeliveredOnFlush counts SDUs delivered by Flush.
	DeliveredOnFlush uint64
	// Reordered counts accepted PDUs that arrived with a COUNT below RX_NEXT,
	// i.e. below the highest COUNT seen: the reordering the receiver saw.
	Reordered uint64
	// Held counts PDUs that were buffered (not delivered on arrival).
	Held uint64
	// DuplicatesDiscarded counts copies of a COUNT already buffered or
	// delivered (duplication sends every PDU twice).
	DuplicatesDiscarded uint64
	// OldDiscarded counts PDUs discarded as too late (their COUNT was given
	// up by an expiry) or out of window (aliased: they were W or more COUNTs
	// ahead, pdcp-reordering.md Example G).
	OldDiscarded uint64
	// GivenUp counts COUNTs an expiry or Flush skipped without having them:
	// the losses the upper layer sees.
	GivenUp uint64
	// Expiries counts t-Reordering expiries.
	Expiries uint64
	// MaxBuffered is the largest number of SDUs held at once.
	MaxBuffered int
	// HoldTime records, for every delivered SDU, the time from its arrival
	// to its delivery (0 for SDUs delivered on arrival): the delay PDCP adds.
	HoldTime Histogram
}
