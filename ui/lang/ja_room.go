package lang

// The served room (ui/serve, the roster, predict scores kept across
// connections, handouts over HTTP).
func init() {
	register(map[string]string{
		// The paste limit on the SSH channel.
		"input cut: more than %d bytes arrived at once (the room's paste limit); the rest was dropped": "入力を打ち切りました: 一度に %d バイトを超えて届きました（この部屋の貼り付け上限）。残りは捨てました",
		"paste over the room's limit of %d bytes: refusing it…":                                        "貼り付けがこの部屋の上限 %d バイトを超えています: 受け付けません…",
		"paste refused: %d bytes, over the room's limit of %d (nothing was pasted)":                    "貼り付けを断りました: %d バイトで、この部屋の上限 %d を超えています（何も貼り付けていません）",

		// Predict scores kept beside the learner's session.
		"your predict score could not be kept on the server: %v":                        "予想のスコアをサーバーに保存できませんでした: %v",
		"your predict score could not be kept: %v":                                      "予想のスコアを保存できませんでした: %v",
		"your predict scores from before were not used (%v): they start again at 0/0":   "前回の予想のスコアは使いませんでした（%v）。0/0 から数え直します",
		"%s is not a regular file":                                                      "%s は通常のファイルではありません",
		"%s is over %d KB":                                                              "%s が %d KB を超えています",
		"%s is not a scores file: %v":                                                   "%s はスコアのファイルではありません: %v",
		"%s belongs to another learner":                                                 "%s は別の受講者のものです",
		"%s names a lesson glassbox does not have (%q)":                                 "%s に glassbox にないレッスンの名前があります（%q）",
		"%s holds an impossible score for %s (%d/%d)":                                   "%s の %s のスコアがありえない値です（%d/%d）",
		"%s has no valid seal: it was not written by this server, or was changed since": "%s に正しい封印がありません: このサーバーが書いたものではないか、書いた後に変更されています",
		"your own request":                                                              "自分のリクエスト",
		"lesson %s":                                                                     "レッスン %s",

		// Handouts over HTTP.
		"%s is not one of your handouts":       "%s はあなたの配布資料ではありません",
		"the handouts server is not listening": "配布資料のサーバーが待ち受けていません",
		"glassbox handouts are read-only":      "glassbox の配布資料は読み取り専用です",
		"no such handout (the address is shown on your glass box when you press X; it lasts while the room is served)": "その配布資料はありません（アドレスは X を押すとグラスボックスに表示されます。部屋が開いている間だけ有効です）",
		"Your glassbox handouts": "あなたの glassbox 配布資料",
		"None yet: press X in your glass box to write the step on screen.":                         "まだありません: グラスボックスで X を押すと、表示中のステップを書き出します。",
		"These pages last while the room is served: save the ones you want to keep.":               "これらのページは部屋が開いている間だけ見られます。残したいものは保存してください。",
		"  handouts over HTTP:     port %s  (X shows each learner the address of their own pages)": "  HTTP の配布資料:        ポート %s  （X で各受講者に自分のページのアドレスを表示）",

		// The instructor's roster (R).
		"R: the roster is the instructor's, in a served room (glassbox serve --instruct)": "R: 名簿は配信された教室の講師のものです（glassbox serve --instruct）",
		"scroll":                 "スクロール",
		"now at":                 "現在の状態",
		"score":                  "スコア",
		"close the roster":       "名簿を閉じる",
		"↑/↓ scroll the roster":  "↑/↓ で名簿をスクロール",
		"Room":                   "教室",
		"%d learner%s connected": "接続中の受講者 %d 人%.0s",
		" · %d following you":    " · フォロー中 %d 人",
		"live and read-only: no learner's files or requests are shown here": "随時更新・閲覧のみ: 受講者のファイルや依頼はここには出ません",
		"name":               "名前",
		"lesson":             "レッスン",
		"calls":              "呼出",
		"retries":            "再試行",
		"fails":              "失敗",
		"own request":        "自分の依頼",
		"The room's answers": "教室の答え",
		"no predictions yet: learners in predict mode (P) answer before each step":                "まだ予想はありません: 予想モード（P）の受講者が各ステップの前に答えます",
		"each learner's latest prediction, grouped by lesson · step · the state it was made from": "受講者ごとの最新の予想を、レッスン · ステップ · 予想した時点の状態でまとめています",
		"%s · step %d from %s — %d answer%s":                                                      "%s · ステップ %d（%s から）— 回答 %d 件%.0s",
		"  ✓ the loop took it (%d)":                                                               "  ✓ ループはここを通りました（%d）",

		// A served learner's handout (X).
		"handout of step %d written on the server, but you cannot fetch it: %v": "ステップ %d の配布資料をサーバーに書きましたが、取りに行けません: %v",
		"handout of step %d: %s": "ステップ %d の配布資料: %s",
		"handout of step %d — open in your browser while the room is served:": "ステップ %d の配布資料 — 教室が開いている間にブラウザーで開いてください:",
	})
}
