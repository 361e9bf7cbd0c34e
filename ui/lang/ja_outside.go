package lang

// The steps of a foreign agent read from its HTTP exchanges (loop/outside):
// why a step is inferred, and why a call could not be used.
func init() {
	register(map[string]string{
		"The agent decides on its tool calls itself: glassbox sees no approval, only the result that came back in its next request.": "ツール呼び出しはエージェント自身が決めます。glassbox には承認は見えず、次のリクエストで戻ってきた結果だけが見えます。",
		"The agent ran the tool itself: glassbox sees only the result it sent back in its next request.":                             "ツールはエージェント自身が実行しました。glassbox に見えるのは、次のリクエストで送り返された結果だけです。",
		"The agent's next request carried no result for this call: it did not run it, or it dropped the result.":                     "エージェントの次のリクエストに、この呼び出しの結果はありませんでした。実行しなかったか、結果を捨てたかのどちらかです。",
		"The agent shows the answer to its user: glassbox does not see that.":                                                        "回答はエージェントが自分の利用者に見せます。glassbox にはそれは見えません。",
		"The agent dealt with the failure itself (it may retry, or tell its user): glassbox does not see that.":                      "失敗への対処はエージェント自身が行いました（再送するか、利用者に伝えるか）。glassbox にはそれは見えません。",

		"the service answered HTTP %d: %s":                                                             "サービスは HTTP %d を返しました: %s",
		"the reply was cut off after %d records: the connection failed (%s)":                           "応答は %d 件のレコードの後で途切れました。接続が失敗しました（%s）",
		"the reply stopped in the middle of a record, after %d whole records":                          "応答は完全なレコード %d 件の後、レコードの途中で止まりました",
		"the reply ended after %d records without saying it was done; a record could not be read (%s)": "応答は %d 件のレコードで終わり、完了を示しませんでした。読めないレコードがありました（%s）",
		"the reply ended after %d records without saying it was done":                                  "応答は %d 件のレコードで終わり、完了を示しませんでした",
		"glassbox cannot read this call: %s %s is not a model call of any dialect it knows (%s)":       "glassbox はこの呼び出しを読めません: %s %s は、glassbox が知っているどのダイアレクトのモデル呼び出しでもありません（%s）",
		"glassbox could not read this %s request: %w":                                                  "glassbox はこの %s のリクエストを読めませんでした: %w",
	})
}
