declare module "virtual:rule-index" {
  const index: Record<string, Record<string, string>>;
  export default index;
}
