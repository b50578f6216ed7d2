package gsofwd

// Headroom is what the TUN library needs in front of each packet to write
// a virtio-net header when it hands a coalesced super-packet back: reads
// and writes of Ends.TUN and Ends.UDP take packets at this offset of
// their buffers. A sender may write a header of its own into it, in
// front of a packet read (emu/dcproxy writes the PDCP header there).
const Headroom = 16

// BufSize is the size of a buffer that holds the largest super-packet a
// TUN read or a UDP GRO read returns, after Headroom.
const BufSize = Headroom + 65535
