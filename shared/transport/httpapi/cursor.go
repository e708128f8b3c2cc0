package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/identity"
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

// encodeCursor writes the payload as encoding/json would write cursorPayload
// (decodeCursor reads it with encoding/json), by hand: it is on every list
// page with a next one.
func encodeCursor(signer *identity.Signer, accountID string, p callscribe.Position) string {
	var buf [128]byte
	payload := append(buf[:0], `{"v":1,"a":`...)
	payload = appendJSONString(payload, accountTag(accountID))
	payload = append(payload, `,"t":`...)
	payload = strconv.AppendInt(payload, p.CreatedAt.UnixNano(), 10)
	payload = append(payload, `,"i":`...)
	payload = appendJSONString(payload, p.JobID)
	payload = append(payload, '}')
	return signer.Sign(payload)
}

var errBadCursor = errors.New("bad cursor")

// maxCursorBytes is far above any cursor encodeCursor writes (about 150
// characters); a longer one is refused before its signature is checked.
const maxCursorBytes = 512

func decodeCursor(signer *identity.Signer, accountID, cursor string) (*callscribe.Position, error) {
	payload, err := signer.Open(cursor)
	if err != nil {
		return nil, errBadCursor
	}
	var c cursorPayload
	if json.Unmarshal(payload, &c) != nil || c.V != 1 || c.A != accountTag(accountID) || c.I == "" {
		return nil, errBadCursor
	}
	return &callscribe.Position{CreatedAt: time.Unix(0, c.T).UTC(), JobID: c.I}, nil
}
