package serve

import (
	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// refusedRequests are the session requests refused before the SSH library
// sees them: it answers agent forwarding with yes (and never uses it).
var refusedRequests = map[string]bool{
	"auth-agent-req@openssh.com": true,
	"x11-req":                    true,
}

// sessionWithoutForwarding is the library's session channel with agent
// and X11 forwarding refused.
func sessionWithoutForwarding(srv *ssh.Server, conn *gossh.ServerConn, newChan gossh.NewChannel, ctx ssh.Context) {
	ssh.DefaultSessionHandler(srv, conn, filteredChannel{newChan}, ctx)
}

type filteredChannel struct{ gossh.NewChannel }

func (c filteredChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := c.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	go func() {
		defer close(out)
		for r := range reqs {
			if refusedRequests[r.Type] {
				if r.WantReply {
					r.Reply(false, nil)
				}
				continue
			}
			out <- r
		}
	}()
	return ch, out, nil
}
