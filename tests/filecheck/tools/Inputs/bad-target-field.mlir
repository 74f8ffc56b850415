module attributes {loop.target = #loop.target<chip = "haswell">} {
}
