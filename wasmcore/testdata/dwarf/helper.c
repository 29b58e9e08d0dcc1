__attribute__((noinline)) int helper(int x) {
	if (x > 10) {
		return x - 10;
	}
	return x * 3;
}

int unused_function(int y) {
	return y + 42;
}
