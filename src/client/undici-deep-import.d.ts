// undici's types describe its index only; these deep paths hold what the index re-exports.
declare module 'undici/lib/dispatcher/client.js' {
  import { Client } from 'undici';
  export default Client;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export default Dispatcher;
}
declare module 'undici/lib/api/api-request.js' {
  import { Dispatcher } from 'undici';
  const request: Dispatcher['request'];
  export default request;
}
