/* NIC register map. Generated from regmap/src/lib.rs by `nic regmap --out docs`; do not edit. */
#ifndef NIC_REGS_H
#define NIC_REGS_H

#define NIC_QUEUE_STRIDE 0x40u
#define NIC_RX_IRQ_BASE 8u

/* block global: Identification, control, station address, interrupts. */
#define NIC_GLOBAL_BASE 0x0000u
#define NIC_GLOBAL_ID 0x0000u /* RO */
#define NIC_GLOBAL_VERSION 0x0004u /* RO */
#define NIC_GLOBAL_NEXT 0x0008u /* RO */
#define NIC_GLOBAL_FEATURES 0x000cu /* RO */
#define NIC_GLOBAL_FEATURES_LOOPBACK 0x00000001u
#define NIC_GLOBAL_FEATURES_SCATTER_GATHER 0x00000002u
#define NIC_GLOBAL_FEATURES_IRQ_MODERATION 0x00000004u
#define NIC_GLOBAL_FEATURES_RX_FILTER 0x00000008u
#define NIC_GLOBAL_FEATURES_TX_CSUM 0x00000010u
#define NIC_GLOBAL_FEATURES_TSO 0x00000020u
#define NIC_GLOBAL_FEATURES_RX_CSUM 0x00000040u
#define NIC_GLOBAL_FEATURES_RSS 0x00000080u
#define NIC_GLOBAL_FEATURES_RDMA 0x00000100u
#define NIC_GLOBAL_QUEUES 0x0010u /* RO */
#define NIC_GLOBAL_QUEUES_TX 0x000000ffu
#define NIC_GLOBAL_QUEUES_RX 0x0000ff00u
#define NIC_GLOBAL_CONTROL 0x0014u /* RW */
#define NIC_GLOBAL_CONTROL_LOOPBACK 0x00000001u
#define NIC_GLOBAL_MAC_ADDR_LO 0x0018u /* RW */
#define NIC_GLOBAL_MAC_ADDR_HI 0x001cu /* RW */
#define NIC_GLOBAL_MAC_ADDR_HI_ADDR 0x0000ffffu
#define NIC_GLOBAL_MAX_FRAME_LEN 0x0020u /* RW */
#define NIC_GLOBAL_MAX_FRAME_LEN_LEN 0x0000ffffu
#define NIC_GLOBAL_IRQ_STATUS 0x0024u /* W1C */
#define NIC_GLOBAL_IRQ_MASK 0x0028u /* RW */
#define NIC_GLOBAL_CYCLE_COUNT 0x002cu /* RO */
#define NIC_GLOBAL_DMA_ADDR_BITS 0x0030u /* RO */
#define NIC_GLOBAL_DMA_ADDR_BITS_BITS 0x000000ffu

/* block stats: Statistics counters (per direction: frames, bytes, drops and errors by reason). */
#define NIC_STATS_BASE 0x0100u
#define NIC_STATS_ID 0x0100u /* RO */
#define NIC_STATS_VERSION 0x0104u /* RO */
#define NIC_STATS_NEXT 0x0108u /* RO */
#define NIC_STATS_TX_FRAMES 0x0110u /* RO */
#define NIC_STATS_TX_BYTES 0x0114u /* RO */
#define NIC_STATS_TX_ERRORS 0x0118u /* RO */
#define NIC_STATS_RX_FRAMES 0x011cu /* RO */
#define NIC_STATS_RX_BYTES 0x0120u /* RO */
#define NIC_STATS_RX_DROP_NO_BUFFER 0x0124u /* RO */
#define NIC_STATS_RX_DROP_FCS 0x0128u /* RO */
#define NIC_STATS_RX_DROP_RUNT 0x012cu /* RO */
#define NIC_STATS_RX_DROP_OVERSIZE 0x0130u /* RO */
#define NIC_STATS_RX_DROP_TRUNCATED 0x0134u /* RO */
#define NIC_STATS_RX_DROP_PHY_ERROR 0x0138u /* RO */
#define NIC_STATS_RX_DROP_UCAST_FILTER 0x013cu /* RO */
#define NIC_STATS_RX_DROP_MCAST_FILTER 0x0140u /* RO */
#define NIC_STATS_RX_DROP_BCAST_FILTER 0x0144u /* RO */
#define NIC_STATS_RX_CSUM_L3_BAD 0x0148u /* RO */
#define NIC_STATS_RX_CSUM_L4_BAD 0x014cu /* RO */
#define NIC_STATS_TX_OFFLOAD_ERRORS 0x0150u /* RO */
#define NIC_STATS_TX_TSO_SEGMENTS 0x0154u /* RO */

/* block txq: TX descriptor rings. */
#define NIC_TXQ_BASE 0x1000u
#define NIC_TXQ_ID 0x1000u /* RO */
#define NIC_TXQ_VERSION 0x1004u /* RO */
#define NIC_TXQ_NEXT 0x1008u /* RO */
#define NIC_TXQ_COUNT 0x100cu /* RO */
#define NIC_TXQ_Q_BASE_LO(q) (0x1040u + 0x40u * (q)) /* RW */
#define NIC_TXQ_Q_BASE_LO_ADDR 0xfffffff0u
#define NIC_TXQ_Q_BASE_HI(q) (0x1044u + 0x40u * (q)) /* RW */
#define NIC_TXQ_Q_BASE_HI_ADDR 0x00000fffu
#define NIC_TXQ_Q_SIZE_LOG2(q) (0x1048u + 0x40u * (q)) /* RW */
#define NIC_TXQ_Q_SIZE_LOG2_LOG2 0x0000000fu
#define NIC_TXQ_Q_CONTROL(q) (0x104cu + 0x40u * (q)) /* RW */
#define NIC_TXQ_Q_CONTROL_ENABLE 0x00000001u
#define NIC_TXQ_Q_TAIL(q) (0x1050u + 0x40u * (q)) /* RW */
#define NIC_TXQ_Q_TAIL_INDEX 0x0000ffffu
#define NIC_TXQ_Q_HEAD(q) (0x1054u + 0x40u * (q)) /* RO */
#define NIC_TXQ_Q_STATUS(q) (0x1058u + 0x40u * (q)) /* RO */
#define NIC_TXQ_Q_STATUS_ACTIVE 0x00000001u
#define NIC_TXQ_Q_STATUS_ERROR 0x00000002u
#define NIC_TXQ_Q_STATUS_ERROR_CODE 0x0000ff00u
#define NIC_TXQ_Q_IRQ_COUNT(q) (0x105cu + 0x40u * (q)) /* RW */
#define NIC_TXQ_Q_IRQ_COUNT_COUNT 0x0000ffffu
#define NIC_TXQ_Q_IRQ_TIMER(q) (0x1060u + 0x40u * (q)) /* RW */
#define NIC_TXQ_Q_IRQ_TIMER_CYCLES 0x000fffffu
#define NIC_TXQ_Q_WEIGHT(q) (0x1064u + 0x40u * (q)) /* RW */
#define NIC_TXQ_Q_WEIGHT_BYTES 0x0000ffffu
#define NIC_TXQ_Q_PRIORITY(q) (0x1068u + 0x40u * (q)) /* RW */
#define NIC_TXQ_Q_PRIORITY_STRICT 0x00000001u

/* block rxq: RX descriptor rings. */
#define NIC_RXQ_BASE 0x2000u
#define NIC_RXQ_ID 0x2000u /* RO */
#define NIC_RXQ_VERSION 0x2004u /* RO */
#define NIC_RXQ_NEXT 0x2008u /* RO */
#define NIC_RXQ_COUNT 0x200cu /* RO */
#define NIC_RXQ_Q_BASE_LO(q) (0x2040u + 0x40u * (q)) /* RW */
#define NIC_RXQ_Q_BASE_LO_ADDR 0xfffffff0u
#define NIC_RXQ_Q_BASE_HI(q) (0x2044u + 0x40u * (q)) /* RW */
#define NIC_RXQ_Q_BASE_HI_ADDR 0x00000fffu
#define NIC_RXQ_Q_SIZE_LOG2(q) (0x2048u + 0x40u * (q)) /* RW */
#define NIC_RXQ_Q_SIZE_LOG2_LOG2 0x0000000fu
#define NIC_RXQ_Q_CONTROL(q) (0x204cu + 0x40u * (q)) /* RW */
#define NIC_RXQ_Q_CONTROL_ENABLE 0x00000001u
#define NIC_RXQ_Q_TAIL(q) (0x2050u + 0x40u * (q)) /* RW */
#define NIC_RXQ_Q_TAIL_INDEX 0x0000ffffu
#define NIC_RXQ_Q_HEAD(q) (0x2054u + 0x40u * (q)) /* RO */
#define NIC_RXQ_Q_STATUS(q) (0x2058u + 0x40u * (q)) /* RO */
#define NIC_RXQ_Q_STATUS_ACTIVE 0x00000001u
#define NIC_RXQ_Q_STATUS_ERROR 0x00000002u
#define NIC_RXQ_Q_STATUS_ERROR_CODE 0x0000ff00u
#define NIC_RXQ_Q_IRQ_COUNT(q) (0x205cu + 0x40u * (q)) /* RW */
#define NIC_RXQ_Q_IRQ_COUNT_COUNT 0x0000ffffu
#define NIC_RXQ_Q_IRQ_TIMER(q) (0x2060u + 0x40u * (q)) /* RW */
#define NIC_RXQ_Q_IRQ_TIMER_CYCLES 0x000fffffu
#define NIC_RXQ_Q_DROPS(q) (0x2064u + 0x40u * (q)) /* RO */

/* block rxc: RX classification: MAC filter and RSS (docs/rx-classification.md). */
#define NIC_RXC_BASE 0x3000u
#define NIC_RXC_ID 0x3000u /* RO */
#define NIC_RXC_VERSION 0x3004u /* RO */
#define NIC_RXC_NEXT 0x3008u /* RO */
#define NIC_RXC_MAC_FILTER_COUNT 0x300cu /* RO */
#define NIC_RXC_FILTER_CTRL 0x3010u /* RW */
#define NIC_RXC_FILTER_CTRL_PROMISC 0x00000001u
#define NIC_RXC_FILTER_CTRL_ALLMULTI 0x00000002u
#define NIC_RXC_FILTER_CTRL_BROADCAST 0x00000004u
#define NIC_RXC_RSS_CTRL 0x3014u /* RW */
#define NIC_RXC_RSS_CTRL_IPV4 0x00000001u
#define NIC_RXC_RSS_CTRL_TCP_IPV4 0x00000002u
#define NIC_RXC_RSS_CTRL_UDP_IPV4 0x00000004u
#define NIC_RXC_RSS_CTRL_IPV6 0x00000008u
#define NIC_RXC_RSS_CTRL_TCP_IPV6 0x00000010u
#define NIC_RXC_RSS_CTRL_UDP_IPV6 0x00000020u
#define NIC_RXC_RSS_KEY(i) (0x3040u + 0x4u * (i)) /* RW, i < 10 */
#define NIC_RXC_MAC_FILTER_LO(i) (0x3100u + 0x8u * (i)) /* RW, i < 16 */
#define NIC_RXC_MAC_FILTER_HI(i) (0x3104u + 0x8u * (i)) /* RW, i < 16 */
#define NIC_RXC_MAC_FILTER_HI_ADDR 0x0000ffffu
#define NIC_RXC_MAC_FILTER_HI_QUEUE 0x00ff0000u
#define NIC_RXC_MAC_FILTER_HI_STEER 0x40000000u
#define NIC_RXC_MAC_FILTER_HI_ENABLE 0x80000000u
#define NIC_RXC_RSS_RETA(i) (0x3200u + 0x4u * (i)) /* WO, i < 32 */
#define NIC_RXC_MCAST_HASH(i) (0x3400u + 0x4u * (i)) /* WO, i < 128 */

/* block rdma: RDMA engine: RoCEv2 reliable connected QPs, the QP, MR and CQ tables, doorbells, counters (docs/rdma.md). Only in a build with FEATURES.RDMA. */
#define NIC_RDMA_BASE 0x4000u
#define NIC_RDMA_ID 0x4000u /* RO */
#define NIC_RDMA_VERSION 0x4004u /* RO */
#define NIC_RDMA_NEXT 0x4008u /* RO */
#define NIC_RDMA_QP_COUNT 0x400cu /* RO */
#define NIC_RDMA_MR_COUNT 0x4010u /* RO */
#define NIC_RDMA_CQ_COUNT 0x4014u /* RO */
#define NIC_RDMA_CONTROL 0x4018u /* RW */
#define NIC_RDMA_CONTROL_ENABLE 0x00000001u
#define NIC_RDMA_LOCAL_IPV4 0x401cu /* RW */
#define NIC_RDMA_TABLE_CMD 0x4020u /* WO */
#define NIC_RDMA_TABLE_CMD_INDEX 0x000000ffu
#define NIC_RDMA_TABLE_CMD_TABLE 0x00000300u
#define NIC_RDMA_TABLE_CMD_WRITE 0x00008000u
#define NIC_RDMA_TABLE_CMD_WORD_MASK 0xffff0000u
#define NIC_RDMA_TABLE_STATUS 0x4024u /* RO */
#define NIC_RDMA_TABLE_STATUS_BUSY 0x00000001u
#define NIC_RDMA_TABLE_STATUS_BAD_INDEX 0x00000002u
#define NIC_RDMA_CAPS 0x4028u /* RO */
#define NIC_RDMA_CAPS_RETRANSMIT 0x00000001u
#define NIC_RDMA_ACK_EVERY 0x402cu /* RW */
#define NIC_RDMA_ACK_EVERY_N 0x00000007u
#define NIC_RDMA_TIMER_UNIT 0x4030u /* RW */
#define NIC_RDMA_TIMER_UNIT_CYCLES 0x0000ffffu
#define NIC_RDMA_TABLE_DATA(i) (0x4040u + 0x4u * (i)) /* RW, i < 16 */
#define NIC_RDMA_SQ_DOORBELL 0x4080u /* WO */
#define NIC_RDMA_SQ_DOORBELL_QPN 0x000000ffu
#define NIC_RDMA_SQ_DOORBELL_PI 0xffff0000u
#define NIC_RDMA_RQ_DOORBELL 0x4084u /* WO */
#define NIC_RDMA_RQ_DOORBELL_QPN 0x000000ffu
#define NIC_RDMA_RQ_DOORBELL_PI 0xffff0000u
#define NIC_RDMA_CQ_DOORBELL 0x4088u /* WO */
#define NIC_RDMA_CQ_DOORBELL_CQN 0x0000000fu
#define NIC_RDMA_CQ_DOORBELL_ARM 0x00000100u
#define NIC_RDMA_CQ_DOORBELL_SOLICITED 0x00000200u
#define NIC_RDMA_CQ_DOORBELL_CI 0xffff0000u
#define NIC_RDMA_TX_PACKETS 0x40c0u /* RO */
#define NIC_RDMA_TX_BYTES 0x40c4u /* RO */
#define NIC_RDMA_RX_PACKETS 0x40c8u /* RO */
#define NIC_RDMA_RX_BYTES 0x40ccu /* RO */
#define NIC_RDMA_RX_DROP_ICRC 0x40d0u /* RO */
#define NIC_RDMA_RX_DROP_MALFORMED 0x40d4u /* RO */
#define NIC_RDMA_RX_DROP_QP 0x40d8u /* RO */
#define NIC_RDMA_RX_DROP_PSN 0x40dcu /* RO */
#define NIC_RDMA_TX_ACKS 0x40e0u /* RO */
#define NIC_RDMA_TX_NAKS 0x40e4u /* RO */
#define NIC_RDMA_RX_NAKS 0x40e8u /* RO */
#define NIC_RDMA_CQ_OVERFLOWS 0x40ecu /* RO */
#define NIC_RDMA_RX_DROP_NOBUF 0x40f0u /* RO */
#define NIC_RDMA_RX_DUPLICATES 0x40f4u /* RO */
#define NIC_RDMA_TX_RETRIES 0x40f8u /* RO */
#define NIC_RDMA_TX_RESENT 0x40fcu /* RO */
#define NIC_RDMA_RX_DROP_STATE 0x4100u /* RO */

#define NIC_DESC_SIZE 16u
#define NIC_DESC_TX_EOP 0x0001u
#define NIC_DESC_TX_REPORT_STATUS 0x0002u
#define NIC_DESC_DONE 0x8000u
#define NIC_DESC_RX_EOP 0x0001u

#endif /* NIC_REGS_H */
