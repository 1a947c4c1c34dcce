fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    nic_hw::export::write_board(nic_hw::Config::Small, &dir, 62.5e6).unwrap();
    std::fs::write(dir.join("ecp5_sim_cells.v"), nic_hw::board::ecpix5::SIM_PRIMITIVES).unwrap();
}
