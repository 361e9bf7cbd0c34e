package lang

// The served room (`glassbox serve`, ui/serve): the instructor's banner,
// what a learner is told when the room refuses or ends a connection, and
// the room's notices. Commands, user names (NAME, follow) and key names
// stay as they are.
func init() {
	register(map[string]string{
		// asked at sign-in (keyboard-interactive), before the learner's
		// locale is known
		"glassbox workshop": "glassbox ワークショップ",
		"passphrase: ":      "合言葉: ",

		// the banner
		"listening on %s (up to %d learners)": "%s で待ち受け中(受講者は最大 %d 人)",
		"learners connect with:":              "受講者の接続方法:",
		"ssh -p %s NAME@HOST  (NAME is theirs: the same name resumes their session)": "ssh -p %s NAME@HOST (NAME は各自の名前。同じ名前ならセッションを再開します)",
		"workshop passphrase:":                 "ワークショップの合言葉:",
		"authorized keys:":                     "登録済みの鍵:",
		"%d from %s":                           "%d 個(%s)",
		"follow the instructor:":               "講師の画面を見る:",
		"ssh -p %s %s@HOST  (read-only, live)": "ssh -p %s %s@HOST (読み取り専用、ライブ)",
		"host key fingerprint:":                "ホスト鍵のフィンガープリント:",
		"every learner runs:":                  "受講者の実行環境:",
		"offline simulation":                   "オフラインのシミュレーション",
		"provider %s (the server's key; learners never see it)": "プロバイダー %s(サーバーの鍵を使用。受講者には見えません)",
		"%s, lesson %s":    "%s、レッスン %s",
		"stop with Ctrl-C": "Ctrl-C で終了します",
		"stopped; every learner's session is kept": "終了しました。受講者全員のセッションは保存されています",

		// serve's flags and their mistakes
		"serve: the address to listen on": "serve: 待ち受けるアドレス",
		"serve: an authorized_keys FILE; its keys get in, and no passphrase is made (only with GLASSBOX_PASSPHRASE set does a passphrase get in too)": "serve: authorized_keys ファイル。その鍵で入れます。合言葉は作りません (GLASSBOX_PASSPHRASE を設定したときだけ、合言葉でも入れます)",
		"the one you chose (%s; not shown)":                                                                                           "あなたが決めたもの (%s。表示しません)",
		"%w: %s is %d characters; a workshop passphrase needs at least %d":                                                            "%w: %s は %d 文字です。ワークショップの合言葉は %d 文字以上にしてください",
		"serve: learners connected at once":                                                                                           "serve: 同時に接続できる受講者の数",
		"serve: disconnect a learner after this long without a key":                                                                   "serve: キー入力がこの時間なければ受講者の接続を切ります",
		"serve: run your own glass box here and broadcast it to the learners who connect as 'follow'":                                 "serve: ここで自分の glass box を動かし、'follow' で接続した受講者に配信します",
		"serve: every learner starts in predict mode (P toggles it)":                                                                  "serve: 受講者全員が予測モードで始めます(P で切り替え)",
		"serve: also answer HTTP on this ADDR (\":8080\"): each learner fetches their handouts (X) at an address only they are shown": "serve: この ADDR(\":8080\")でも HTTP に答えます。受講者は自分にだけ見えるアドレスで配布資料(X)を取得します",
		"handouts over HTTP:": "HTTP の配布資料:",
		"port %s  (X shows each learner the address of their own pages)":               "ポート %s (X で各受講者に自分のページのアドレスを表示)",
		"serve: the largest paste accepted, in bytes":                                  "serve: 受け付ける貼り付けの最大バイト数",
		"%w: unexpected argument %q (glassbox serve takes only flags)":                 "%w: 余分な引数 %q があります(glassbox serve が受け取るのはフラグだけです)",
		"%w: --%s is not for serve: each learner gets their own workspace and session": "%w: --%s は serve では使えません: 受講者はそれぞれ自分のワークスペースとセッションを持ちます",
		"%w: --max-learners, --max-paste and --idle must be positive":                  "%w: --max-learners、--max-paste、--idle には正の値を指定してください",
		"--instruct runs your glass box here and needs a terminal":                     "--instruct はここで glass box を動かすので、端末が必要です",

		// what stops the room from starting
		"serve: no state folder (set XDG_STATE_HOME or HOME)": "serve: 状態フォルダーがありません(XDG_STATE_HOME か HOME を設定してください)",
		"serve: host key: %v": "serve: ホスト鍵: %v",
		"serve: the host key %s is readable by others (mode %v); chmod 600 it": "serve: ホスト鍵 %s を他人が読めます(モード %v)。chmod 600 してください",
		"--authorized-keys %s: key %d: %v":                                     "--authorized-keys %s: %d 行目の鍵: %v",
		"--authorized-keys %s: no keys in the file":                            "--authorized-keys %s: ファイルに鍵がありません",
		"serve: no --handouts-http":                                            "serve: --handouts-http がありません",

		// what a learner is told
		"not signed in": "サインインしていません",
		"the glass box needs a terminal: connect with `ssh -t` (commands are not run here)":                         "glass box には端末が必要です: `ssh -t` で接続してください(ここではコマンドは実行されません)",
		"you are already connected from another terminal; close that one first (one glass box per learner)":         "別の端末ですでに接続しています。先にそちらを閉じてください(glass box は 1 人に 1 つです)",
		"the room is full (%d learners connected, the limit); ask the instructor, or try again when someone leaves": "部屋が満員です(上限の %d 人が接続中)。講師に相談するか、誰かが退出してからもう一度試してください",
		"cannot open your glass box: %s":                     "あなたの glass box を開けません: %s",
		"%s; your session is kept — connect again to go on.": "%s。セッションは保存されています。もう一度接続すると続きから始められます。",
		"nobody is instructing in this room (the instructor starts glassbox serve --instruct); connect with your own name for your own glass box": "この部屋では講師が配信していません(講師は glassbox serve --instruct で始めます)。自分の glass box を使うには自分の名前で接続してください",
		"disconnected after %s without a key":                            "%s キー入力がなかったため切断しました",
		"your terminal is %d×%d: the glass box draws at most %d×%d here": "端末は %d×%d です: ここでは glass box を最大 %d×%d で描きます",
	})
}
