int helper(int x);

static inline int square(int x) { return x * x; }

__attribute__((noinline)) int accumulate(int n) {
	int sum = 0;
	for (int i = 0; i < n; i++) {
		sum += square(i);
	}
	return sum;
}

__attribute__((export_name("run"))) int run(int n) {
	return accumulate(n) + helper(n);
}
