# Entry points: `make run` and `make test` each do their own set-up.
# Builds use at most two jobs (the machines have two cores).

CARGO      ?= cargo
JOBS       ?= 2
NIC        := $(CARGO) run --release -j$(JOBS) --bin nic --
OUT        := out
CONFIGS    := small full

.PHONY: all setup build waves run test test-board-flow lint regmap regmap-html verilog bench clean

all: build

setup:
	@bash scripts/setup.sh

# scripts/build.sh: the models trained for speed (profile-guided, sim/build.rs `PGO_ENV`;
# `make test` does not train, scripts/test.sh says why)
build: setup
	@CARGO=$(CARGO) JOBS=$(JOBS) bash scripts/build.sh all

# The build with every traced model (sim/build.rs `variants`, the board model too): `--wave`
# on `--config full`, `--bus axi` or `nic sim board` needs them. `small`'s traced `nic_top`
# (its DMA port) is in every build.
# About ten more minutes of building; a later plain build (no NIC_SIM_WAVES) drops them again.
waves: setup
	NIC_SIM_WAVES=all $(CARGO) build --release -j$(JOBS) --workspace

# Export the small configuration's Verilog, then 1000 random frames through the
# simulated NIC and the real driver, every byte checked.
run: setup
	@CARGO=$(CARGO) JOBS=$(JOBS) bash scripts/build.sh nic
	$(NIC) verilog --config small --out $(OUT)/verilog
	$(NIC) sim loopback --frames 1000

# The workspace tests include the lint of every configuration and top
# (hw/tests/lint.rs runs what `make lint` runs) and, beside them, the ECP5 board flow to
# a bitstream for `small` (scripts/test.sh says how).
test: setup
	@CARGO=$(CARGO) JOBS=$(JOBS) bash scripts/test.sh

# The two board flows to a bitstream for `small` alone (ECP5, iCE40), their reports
# checked (about 8 minutes).
test-board-flow: setup
	$(CARGO) test --release -j$(JOBS) -p nic-fpga --test synth_check board_flow_

# verilator --lint-only -Wall on the exported Verilog of every configuration, with
# only the generator-caused waivers (hw/lint/waivers.vlt, written next to it).
lint: setup
	@for c in $(CONFIGS); do \
		$(NIC) verilog --config $$c --out $(OUT)/lint/$$c >/dev/null || exit 1; \
		echo "lint: $$c"; \
		for t in nic_top nic_top_axi; do \
			verilator --lint-only -Wall --top-module $$t $(OUT)/lint/$$c/waivers.vlt $(OUT)/lint/$$c/$$t.v || exit 1; \
		done; \
	done

# Regenerate docs/regmap.md, docs/nic_regs.h and docs/nic_regs.rdl from regmap/src/lib.rs.
regmap:
	$(NIC) regmap --out docs

# HTML register documentation from docs/nic_regs.rdl, rendered by PeakRDL into
# out/regmap-html (open index.html).
regmap-html: setup
	.venv/bin/peakrdl html docs/nic_regs.rdl -o $(OUT)/regmap-html
	@echo "wrote $(OUT)/regmap-html/index.html"

verilog: setup
	@for c in $(CONFIGS); do $(NIC) verilog --config $$c --out $(OUT)/verilog/$$c || exit 1; done

bench: setup
	@CARGO=$(CARGO) JOBS=$(JOBS) bash scripts/build.sh nic
	$(NIC) bench loopback

clean:
	$(CARGO) clean
	rm -rf $(OUT)
