// Runtime handlers register through the protocol's descriptors (ClientConnection.handle): the descriptor
// types the handler's params and result. The `@ts-expect-error` lines are the type-check's half of this
// test: were a wrong param or result type accepted, the directive would be unused and `npm run typecheck`
// would fail. The runtime half serves a request over a real JSON-RPC connection.
import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver/node';
import type { MessageConnection } from 'vscode-languageserver/node';
import { sendRequest } from '../../src/common/protocol/endpoint';
import type { RpcEndpoint } from '../../src/common/protocol/endpoint';
import { forkCancel } from '../../src/common/protocol/forks';
import type { ForkCancelResult, ForkIdParams } from '../../src/common/protocol/forks';
import { ClientConnection } from '../../src/runtime/clientConnection';

function connectionPair(): [MessageConnection, MessageConnection] {
  const up = new PassThrough();
  const down = new PassThrough();
  const server = createMessageConnection(new StreamMessageReader(up), new StreamMessageWriter(down));
  const client = createMessageConnection(new StreamMessageReader(down), new StreamMessageWriter(up));
  server.listen();
  client.listen();
  return [server, client];
}

describe('typed runtime handlers', () => {
  it('a handler gets the params its descriptor names and answers its result', async () => {
    const [server, client] = connectionPair();
    try {
      const connection = new ClientConnection(1, server);
      const seen: ForkIdParams[] = [];
      connection.handle(forkCancel, (params): ForkCancelResult => {
        seen.push(params);
        return { cancelled: params.forkId === 'f-1' };
      });
      const answer = await sendRequest(client as unknown as RpcEndpoint, forkCancel, { forkId: 'f-1' });
      assert.deepEqual(answer, { cancelled: true });
      assert.deepEqual(seen, [{ forkId: 'f-1' }]);
    } finally {
      client.dispose();
      server.dispose();
    }
  });

  it('a wrong param or result type does not type-check', () => {
    const connection = new ClientConnection(1, { onRequest: () => ({ dispose() {} }) } as unknown as MessageConnection);
    // @ts-expect-error fork/cancel's forkId is a string
    connection.handle(forkCancel, (params: { forkId: number }) => ({ cancelled: params.forkId > 0 }));
    // @ts-expect-error fork/cancel answers { cancelled: boolean }
    connection.handle(forkCancel, () => ({ cancelled: 'yes' }));
    connection.handle(forkCancel, params => ({ cancelled: params.forkId !== '' }));
  });
});
