//go:build !cgo

package decode

// DecodeMP3 needs libmpg123 through cgo; builds without cgo (the Lambda
// binaries, which hand audio to a remote provider) report MP3 as undecodable here.
func DecodeMP3(data []byte) (*Audio, error) {
	return nil, errorf("MP3 decoding needs a cgo build with libmpg123")
}

// MP3Supported reports whether this build decodes MP3 (cgo with libmpg123).
func MP3Supported() bool { return false }
