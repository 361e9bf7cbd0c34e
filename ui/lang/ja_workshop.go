package lang

// A workshop's day (issue 29): what each person in a room may do, the
// room's life cycle, and the smaller things a day in a room showed.
func init() {
	register(map[string]string{
		// Forks, time travel and the Raw payload.
		"forked at step #%d, the present: no step is abandoned and the files stay as they are":                                             "現在のステップ #%d でフォークしました: 破棄したステップはなく、ファイルもそのままです",
		"This step assembled this request; the step after it sent it (] shows what went out and the reply). space returns to the present.": "このステップがこのリクエストを組み立て、次のステップが送信しました (] で送った内容と返答を表示)。space で現在に戻ります。",
		"This request was assembled and never sent: the branch was abandoned here. B (or a step key) returns to the run.":                  "このリクエストは組み立てただけで送信していません: 枝はここで破棄されました。B (またはステップのキー) で実行に戻ります。",
		"There is no response at this step (r shows the request).":                                                                         "このステップにレスポンスはありません (r でリクエストを表示)。",
		"as assembled · response (r)":           "組み立てたまま · レスポンス (r)",
		"as assembled · request (r)":            "組み立てたまま · リクエスト (r)",
		"r shows the %d frame%s the other way.": "r で反対向きの %d フレーム%.0sを表示します。",
		"assistant":                             "アシスタント",
		"(the address is cut here: z on History shows it whole, on one line)": "(ここではアドレスが切れています: History で z を押すと 1 行で全体を表示します)",
	})
}
