fn main() {
    println!("radbg");
}
