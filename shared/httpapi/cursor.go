package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/identity"
)

// cursorPayload is the position a page ended at, bound to the account it was
// issued to. It is signed, so a modified or another account's cursor is refused
// (400) rather than silently restarting the listing.
type cursorPayload struct {
	V int    `json:"v"`
	A string `json:"a"` // short hash of the account id
	T int64  `json:"t"` // created_at, unix nanoseconds
	I string `json:"i"` // job id
}

func accountTag(accountID string) string {
	sum := sha256.Sum256([]byte(accountID))
	return hex.EncodeToString(sum[:6])
}

func encodeCursor(key []byte, accountID string, p callscribe.Position) string {
	payload, _ := json.Marshal(cursorPayload{V: 1, A: accountTag(accountID), T: p.CreatedAt.UnixNano(), I: p.JobID})
	return identity.Sign(key, payload)
}

var errBadCursor = errors.New("bad cursor")

func decodeCursor(key []byte, accountID, cursor string) (*callscribe.Position, error) {
	payload, err := identity.Open(key, cursor)
	if err != nil {
		return nil, errBadCursor
	}
	var c cursorPayload
	if json.Unmarshal(payload, &c) != nil || c.V != 1 || c.A != accountTag(accountID) || c.I == "" {
		return nil, errBadCursor
	}
	return &callscribe.Position{CreatedAt: time.Unix(0, c.T).UTC(), JobID: c.I}, nil
}
