// A cached PostgreSQL store is dropped and reloaded (a quarter of an hour at full scale) when its marker names
// another server: the same server reached another way must not count as another.
import { markerOnServer, type Marker } from '../src/datasets';

const TCP = 'postgres://postgres@127.0.0.1:5439/postgres';
const SOCKET = 'postgres://postgres@localhost:5439/postgres?host=/tmp';
const dates = ['2024-01-01'];

describe('markerOnServer', () => {
  it('knows a server by its system identifier, whatever URL reaches it', () => {
    const marker: Marker = { dates, server: TCP, serverId: '7712610716292839858' };
    expect(markerOnServer(marker, SOCKET, '7712610716292839858')).toBe(true);
    expect(markerOnServer(marker, TCP, '7712610716292839859')).toBe(false);
  });

  it('falls back to the URL for a marker written before the identifier, or a server that hides it', () => {
    expect(markerOnServer({ dates, server: TCP }, TCP, '7712610716292839858')).toBe(true);
    expect(markerOnServer({ dates, server: TCP }, SOCKET, '7712610716292839858')).toBe(false);
    expect(markerOnServer({ dates, server: TCP, serverId: '1' }, TCP, null)).toBe(true);
    expect(markerOnServer({ dates, server: TCP, serverId: '1' }, SOCKET, null)).toBe(false);
  });
});
