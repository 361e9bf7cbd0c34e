package lang

func init() {
	register(map[string]string{
		"unknown language %q: use en or ja": "%q という言語はありません。en か ja を指定してください",
	})
}
