// Package nft installs the netfilter rules that send packets to an NFQUEUE,
// over netlink (github.com/google/nftables) and without the nft or iptables
// binaries. It owns one table per purpose inside one network namespace: the
// delay lines' queue rules, and the PEP's TPROXY rule. It never touches a
// namespace it was not given, and never the host's root namespace unless the
// caller passes it explicitly.
//
// The queue statement has two encodings. Kernels with CONFIG_NFT_QUEUE take
// the native nftables "queue" expression; kernels without it (the machines
// this project was developed on) still have the xtables NFQUEUE target,
// reachable from nftables through the nft_compat layer. Probe tries both in a
// scratch table and reports which one the kernel accepts; Apply uses the one
// Probe picks, so callers never choose.
package nft
