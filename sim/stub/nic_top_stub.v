// Temporary stand-in for the exported `nic_top` (used only while nic_hw::export::top_verilog
// does not exist). Same ports as docs/interfaces.md; answers the AXI4-Lite ID/VERSION
// registers and keeps every other port idle. The `cfg_full` parameter mirrors the two configs.
module nic_top #(parameter CFG_FULL = 0) (
    input  wire        clock,
    input  wire        reset,
    input  wire [15:0] s_axil_awaddr,
    input  wire        s_axil_awvalid,
    output wire        s_axil_awready,
    input  wire [31:0] s_axil_wdata,
    input  wire [3:0]  s_axil_wstrb,
    input  wire        s_axil_wvalid,
    output wire        s_axil_wready,
    output wire [1:0]  s_axil_bresp,
    output reg         s_axil_bvalid,
    input  wire        s_axil_bready,
    input  wire [15:0] s_axil_araddr,
    input  wire        s_axil_arvalid,
    output wire        s_axil_arready,
    output reg  [31:0] s_axil_rdata,
    output wire [1:0]  s_axil_rresp,
    output reg         s_axil_rvalid,
    input  wire        s_axil_rready,
    output wire        dma_rd_req_valid,
    input  wire        dma_rd_req_ready,
    output wire [63:0] dma_rd_req_addr,
    output wire [15:0] dma_rd_req_len,
    output wire [3:0]  dma_rd_req_tag,
    input  wire        dma_rd_rsp_valid,
    output wire        dma_rd_rsp_ready,
    input  wire [63:0] dma_rd_rsp_data,
    input  wire        dma_rd_rsp_last,
    input  wire        dma_rd_rsp_error,
    input  wire [3:0]  dma_rd_rsp_tag,
    output wire        dma_wr_valid,
    input  wire        dma_wr_ready,
    output wire [63:0] dma_wr_addr,
    output wire [63:0] dma_wr_data,
    output wire [7:0]  dma_wr_strb,
    output wire        dma_wr_last,
    output wire [3:0]  dma_wr_tag,
    input  wire        dma_wr_rsp_valid,
    input  wire        dma_wr_rsp_error,
    input  wire [3:0]  dma_wr_rsp_tag,
    output wire [63:0] tx_axis_tdata,
    output wire [7:0]  tx_axis_tkeep,
    output wire        tx_axis_tlast,
    output wire        tx_axis_tuser,
    output wire        tx_axis_tvalid,
    input  wire        tx_axis_tready,
    input  wire [63:0] rx_axis_tdata,
    input  wire [7:0]  rx_axis_tkeep,
    input  wire        rx_axis_tlast,
    input  wire        rx_axis_tuser,
    input  wire        rx_axis_tvalid,
    output wire        rx_axis_tready,
    output wire [15:0] irq
);
    reg aw_done, w_done;
    reg [31:0] scratch;
    assign s_axil_awready = !aw_done && !s_axil_bvalid;
    assign s_axil_wready  = !w_done && !s_axil_bvalid;
    assign s_axil_bresp = 2'b00;
    assign s_axil_rresp = 2'b00;
    assign s_axil_arready = !s_axil_rvalid;
    always @(posedge clock) begin
        if (reset) begin
            aw_done <= 1'b0; w_done <= 1'b0; s_axil_bvalid <= 1'b0;
            s_axil_rvalid <= 1'b0; s_axil_rdata <= 32'd0; scratch <= 32'd0;
        end else begin
            if (s_axil_awvalid && s_axil_awready) aw_done <= 1'b1;
            if (s_axil_wvalid && s_axil_wready) begin w_done <= 1'b1; scratch <= s_axil_wdata; end
            if ((aw_done || (s_axil_awvalid && s_axil_awready)) && (w_done || (s_axil_wvalid && s_axil_wready))) begin
                s_axil_bvalid <= 1'b1; aw_done <= 1'b0; w_done <= 1'b0;
            end
            if (s_axil_bvalid && s_axil_bready) s_axil_bvalid <= 1'b0;
            if (s_axil_arvalid && s_axil_arready) begin
                s_axil_rvalid <= 1'b1;
                case (s_axil_araddr)
                    16'h0000: s_axil_rdata <= 32'h4E494330;
                    16'h0004: s_axil_rdata <= 32'h00010000;
                    16'h0010: s_axil_rdata <= CFG_FULL ? 32'h00000808 : 32'h00000101;
                    16'h0014, 16'h0028: s_axil_rdata <= scratch;
                    default:  s_axil_rdata <= 32'd0;
                endcase
            end else if (s_axil_rvalid && s_axil_rready) s_axil_rvalid <= 1'b0;
        end
    end
    assign dma_rd_req_valid = 1'b0;
    assign dma_rd_req_addr = 64'd0;
    assign dma_rd_req_len = 16'd0;
    assign dma_rd_req_tag = 4'd0;
    assign dma_rd_rsp_ready = 1'b1;
    assign dma_wr_valid = 1'b0;
    assign dma_wr_addr = 64'd0;
    assign dma_wr_data = 64'd0;
    assign dma_wr_strb = 8'd0;
    assign dma_wr_last = 1'b0;
    assign dma_wr_tag = 4'd0;
    // Stub loopback: whatever arrives on RX leaves on TX.
    assign tx_axis_tdata = rx_axis_tdata;
    assign tx_axis_tkeep = rx_axis_tkeep;
    assign tx_axis_tlast = rx_axis_tlast;
    assign tx_axis_tuser = rx_axis_tuser;
    assign tx_axis_tvalid = rx_axis_tvalid;
    assign rx_axis_tready = tx_axis_tready;
    assign irq = 16'd0;
endmodule
