"""Judges the ICRC of every RoCEv2 frame in a pcap with scapy's own implementation
(scapy.contrib.roce, written independently of this project): rebuilds each BTH with its
ICRC left to scapy and prints, per frame, the ICRC found, the ICRC scapy computes, and the
BTH fields scapy decoded, as `found computed opcode dqpn psn ackreq` in hex."""
import sys

from scapy.all import rdpcap, raw, Ether
from scapy.contrib.roce import BTH

for frame in rdpcap(sys.argv[1]):
    p = Ether(raw(frame))
    if BTH not in p:
        print("no-bth")
        continue
    bth = p[BTH]
    found = bth.icrc
    q = p.copy()
    q[BTH].icrc = None
    computed = Ether(raw(q))[BTH].icrc
    print("%08x %08x %02x %06x %06x %d" % (found, computed, bth.opcode, bth.dqpn, bth.psn, bth.ackreq))
