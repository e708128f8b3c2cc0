package dynamodb

import (
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/storetest"
)

// The contract suites ask for an empty store per subtest; fresh tables give
// exactly that (UnfinishedJobIDs is not scoped to an account).
func TestJobStoreContract(t *testing.T) {
	storetest.RunJobStoreTests(t, func(t *testing.T) callscribe.JobStore {
		return NewJobStore(client, newTables(t), retention)
	})
}

func TestAccountStoreContract(t *testing.T) {
	storetest.RunAccountStoreTests(t, func(t *testing.T) callscribe.AccountStore {
		return NewAccountStore(client, newTables(t))
	})
}
